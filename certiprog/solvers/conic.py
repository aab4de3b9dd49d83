"""Moved: the conic problem's types to `certiprog.conic.problem`, the compiler to `certiprog.model.compile`
(the model compiles into the conic layer; the solvers read it). These names keep working."""
from ..conic.problem import Block, ConicProblem, QuadTerm, merge_cones  # noqa: F401
from ..model.compile import Structure, _assemble_rows, _offset_rows, compile_model  # noqa: F401

__all__ = ["Block", "ConicProblem", "QuadTerm", "Structure", "compile_model", "merge_cones"]
