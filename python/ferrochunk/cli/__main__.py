"""`python -m ferrochunk.cli`."""

import sys

from . import main

sys.exit(main())
