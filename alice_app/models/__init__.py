"""Policy and oracle backends: the embedded SmolLM2, any HF causal LM, OpenAI-compatible endpoints."""
