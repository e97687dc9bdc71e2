"""Training: GRPO/DPO with TRL + PEFT, the co-evolving task feed, the background job."""
