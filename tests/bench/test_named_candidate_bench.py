import pytest

from bench.named_candidate import main, named_share


def test_the_named_candidate_is_right_on_exactly_half_of_every_level():
    cells = named_share(40)
    assert set(cells) == {"easy", "medium", "hard"}
    for level, (share, depths) in cells.items():
        assert share == 0.5, (level, share)
        assert sum(depths.values()) == 40 and {depth % 2 for depth in depths} == {0, 1}, (level, depths)
    assert set(cells["easy"][1]) == {1, 2}


def test_the_table_names_every_level_and_refuses_an_empty_cell(capsys):
    assert main(["--n", "4"]) == 0
    out = capsys.readouterr().out
    assert "| 4 |" in out and "negations" in out
    with pytest.raises(SystemExit):
        main(["--n", "0"])
