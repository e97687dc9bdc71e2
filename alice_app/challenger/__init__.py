"""The challenger: a policy that writes new task wordings (templates with typed slots) for the solver.

proposal.py  parse and validate a proposal (reasons for every rejection)
novelty.py   BLEU similarity to known templates; R-Zero's repetition penalty within a batch
family.py    the ``challenger`` task family: the engine fills stored templates from seeds
difficulty.py  tier 3: the solver's pass rate over k samples; the challenger's reward
policy.py    the challenger model (CHALLENGER_MODEL) and its prompt
judge.py     one batch of raw proposals -> stored templates / rejections, rewards
coevolve.py  alternating challenger and solver GRPO phases (heavy imports inside)
duel.py      two models, each the other's challenger: failure maps
"""
