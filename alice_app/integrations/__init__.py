"""ALICE inside other people's tools: TRL's GRPOTrainer (``environment_factory`` and
``rollout_func``) and the Hugging Face Hub. Nothing heavy is imported at package import."""
