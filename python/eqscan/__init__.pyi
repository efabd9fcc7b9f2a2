from typing import Any, Sequence

from ._eqscan import Error as Error
from ._eqscan import Function as Function
from ._eqscan import Param as Param
from ._eqscan import Program as Program
from ._eqscan import load as load
from ._eqscan import parse as parse

def from_pytensor(outputs: Any, inputs: Sequence[Any] | None = None) -> Program:
    """Converts a PyTensor graph (outputs, and optionally its inputs in
    order) into a Program; raises ``Error`` naming an op it cannot convert."""
