"""bench/paraphrase_replies.py on the committed raw history: the per-idea counts docs/training_runs.md quotes."""
import pytest

from bench.paraphrase_replies import main

HISTORY = "assets/learning_history/"
OLD = HISTORY + "2026-12-05_warm-start-alone_seven-families-f4315ec_3seeds.json"
TALLY = HISTORY + "2026-12-05_warm-start-alone_seven-families_count-tally-bb31d46_3seeds.json"
RUN25 = HISTORY + "2026-12-04_seven-families_grpo-lr3e-5_45steps_3seeds_raw.json"


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


@pytest.mark.parametrize("args, message", [
    ([f"{RUN25}:alice", "--stage", "warm_start"], "kept no replies"),
    ([RUN25], "not a bench/warm_start.py raw"),
    ([f"{RUN25}:episode"], "no 'episode' arm"),
    (["nofile.json"], "No such file")])
def test_bad_specs_are_refused(args, message):
    with pytest.raises(SystemExit, match=message):
        main(args)
