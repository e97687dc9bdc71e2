import sys

from alice_app.cli import main

sys.exit(main())
