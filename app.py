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
    # gradio reads GRADIO_SERVER_PORT at import: validate first. The workbench has the queue limits and
    # the no-upload rule of the server's /web (its body-size limit needs the server: uvicorn alice_app.server:app).
    from alice_app.server.guard import MAX_UPLOAD_BYTES
    from alice_app.server.workbench_guard import guarded_workbench
    from alice_app.ui import launch

    launch(guarded_workbench(services), settings, max_file_size=MAX_UPLOAD_BYTES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
