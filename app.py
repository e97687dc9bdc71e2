"""Start the ALICE workbench: settings → services → Gradio app (http://127.0.0.1:7860 by default).

GRADIO_SERVER_NAME / GRADIO_SERVER_PORT and the ALICE_* variables are read by Settings.from_env.
"""
from alice_app.config import Settings
from alice_app.services import Services
from alice_app.ui import build_app, launch


def main() -> None:
    settings = Settings.from_env()
    launch(build_app(Services.from_settings(settings)), settings)


if __name__ == "__main__":
    main()
