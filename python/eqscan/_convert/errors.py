"""The converter's error type: ``eqscan.Error`` itself.

``eqscan/__init__.py`` defines (or imports) ``Error`` before it imports
``from_pytensor``, so this module can take it from the package.
"""

import eqscan as _pkg

Error = _pkg.Error

__all__ = ["Error"]
