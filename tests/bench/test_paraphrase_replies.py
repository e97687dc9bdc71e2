"""bench/paraphrase_replies.py on the committed raw history: the per-idea counts docs/training_runs.md quotes."""
import pytest

from bench.paraphrase_replies import main

HISTORY = "assets/learning_history/"
OLD = HISTORY + "2026-12-05_warm-start-alone_seven-families-f4315ec_3seeds.json"
TALLY = HISTORY + "2026-12-05_warm-start-alone_seven-families_count-tally-bb31d46_3seeds.json"
RUN25 = HISTORY + "2026-12-04_seven-families_grpo-lr3e-5_45steps_3seeds_raw.json"
COUNT = HISTORY + "2026-12-07_warm-start-alone_seven-families_parity-set-9da15fb-working_3seeds.json"
NOT_PER_NEGATION = HISTORY + "2026-12-07_warm-start-alone_seven-families_dn-not-per-negation-89846ca_3seeds.json"
RUN49 = HISTORY + "2026-12-07_seven-families_n10-parity-set-c239f7e_45steps_seed1_alice_raw.json"


def test_warm_start_raws_are_counted_per_idea_and_seed(capsys):
    assert main([f"{OLD}=old", f"{TALLY}=tally", "--phrase", "Negations"]) == 0
    out = capsys.readouterr().out
    assert "| idea (prompts) | old (3 seeds) | tally (3 seeds) |" in out
    # docs/training_runs.md: echoes summed over the three seeds 25 -> 12; right 102 -> 112 of 198
    assert ('| all (66) | right 102 [35, 37, 30] · echo 25 [9, 8, 8] · "Negations" 21 [8, 0, 13] | '
            'right 112 [34, 39, 39] · echo 12 [5, 2, 5] · "Negations" 18 [7, 2, 9] |') in out
    assert "| double_negation (11) | right 24 [10, 8, 6] · echo 7 [1, 3, 3] · \"Negations\" 6 [2, 0, 4] |" in out


def test_a_learning_raws_arm_is_counted_at_its_stage(capsys):
    assert main([f"{RUN25}:alice=run25", f"{RUN25}:static=static", "--stage", "before"]) == 0
    before = capsys.readouterr().out
    assert main([f"{RUN25}:alice=run25", f"{RUN25}:static=static"]) == 0
    after = capsys.readouterr().out
    assert "stage before" in before and "stage after" in after
    # the README table's run 25: paraphrases correct 0.60 of 66 over 3 seeds for ALICE after the steps
    assert "| all (66) | right 119 [37, 43, 39] · echo 22 [10, 6, 6] | right 118 [41, 40, 37] · echo 23 [8, 8, 7] |" in after


def test_the_negation_parity_replies_are_counted_per_parity(capsys):
    assert main([f"{COUNT}=count", f"{NOT_PER_NEGATION}=not", "--set", "parity", "--phrase", " < "]) == 0
    out = capsys.readouterr().out
    # docs/training_runs.md: a comparison line in 8 (count working) and 22 (one "not" per negation) of 72 replies
    assert ('| all (24) | right 38 [13, 14, 11] · echo 27 [10, 7, 10] · " < " 8 [1, 7, 0] | '
            'right 36 [12, 12, 12] · echo 28 [10, 8, 10] · " < " 22 [9, 9, 4] |') in out
    assert "| odd_negations (12) | right 12 [4, 4, 4]" in out
    assert main([f"{RUN49}:alice", "--set", "parity", "--stage", "before"]) == 0
    assert "| all (24) | right 7 [7] · echo 3 [3] |" in capsys.readouterr().out  # run 49: 7 of 24 before


@pytest.mark.parametrize("args, message", [
    ([f"{RUN25}:alice", "--stage", "warm_start"], "kept no paraphrases replies"),
    ([f"{RUN25}:alice", "--set", "parity"], "kept no parity replies"),
    ([RUN25], "not a bench/warm_start.py raw"),
    ([f"{RUN25}:episode"], "no 'episode' arm"),
    (["nofile.json"], "No such file")])
def test_bad_specs_are_refused(args, message):
    with pytest.raises(SystemExit, match=message):
        main(args)
