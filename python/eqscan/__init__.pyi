from typing import Any, Sequence

from ._eqscan import Error as Error
from ._eqscan import Function as Function
from ._eqscan import Param as Param
from ._eqscan import Program as Program
from ._eqscan import load as load
from ._eqscan import parse as parse

def from_pytensor(
    outputs: Any,
    inputs: Sequence[Any] | None = None,
    updates: Any = None,
    name: str = "pytensor",
) -> Program:
    """Converts a PyTensor graph (outputs, and optionally its inputs in
    order, and shared variable updates) into a Program carrying
    ``pytensor_map``; raises ``Error`` naming an op it cannot convert."""
