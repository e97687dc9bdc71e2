"""Start the ALICE workbench: settings → services → Gradio app (http://127.0.0.1:7860 by default).

GRADIO_SERVER_NAME / GRADIO_SERVER_PORT and the ALICE_* variables are read by Settings.from_env.
"""
import sys

from alice_app.config import Settings
from alice_app.services import Services
from alice_app.store.db import StoreError


def main() -> int:
    try:
        settings = Settings.from_env()
        services = Services.from_settings(settings)
        services.training  # creating the job marks runs left active by a dead process as failed
    except (StoreError, ValueError) as exc:  # a bad setting or database: say what to do, no traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from alice_app.ui import build_app, launch  # gradio reads GRADIO_SERVER_PORT at import: validate first

    launch(build_app(services), settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
