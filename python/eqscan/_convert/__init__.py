"""The PyTensor graph -> eqscan program converter (see ``core`` for the
interface op converters use; ``ops`` holds the converters of PyTensor's
tensor ops, ``scan`` the one of Scan)."""

import importlib.util

from . import core  # noqa: F401
from . import ops  # noqa: F401

# The Scan converter is written on its own branch; import it once it is here.
if importlib.util.find_spec(__name__ + ".scan") is not None:
    from . import scan  # noqa: F401
