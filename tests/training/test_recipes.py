import pytest

from alice_app.training.config import TrainConfig
from alice_app.training.recipes import describe, load_recipe, recipe_paths


def test_every_repository_recipe_validates_and_says_what_it_is_for():
    paths = recipe_paths()
    assert paths, "examples/recipes holds the recipes the docs and the Training tab name"
    for name, path in paths.items():
        TrainConfig.from_dict(load_recipe(path))  # raises naming the bad setting
        assert describe(path) and "python -m" not in describe(path), name


def test_a_folder_of_recipes_is_listed_by_name_and_described_by_its_opening_comment(tmp_path):
    (tmp_path / "b.yaml").write_text("# Two lines\n# of description:\n#   python -m alice_app train --config b.yaml\n"
                                     "# more\nsteps: 3\n")
    (tmp_path / "a.yaml").write_text("steps: 2\n")
    (tmp_path / "notes.txt").write_text("not a recipe")
    assert list(recipe_paths(tmp_path)) == ["a", "b"]
    assert describe(tmp_path / "b.yaml") == "Two lines of description"
    assert describe(tmp_path / "a.yaml") == ""
    assert recipe_paths(tmp_path / "absent") == {}


@pytest.mark.parametrize("text, message", [("- 1\n- 2\n", "must be a YAML mapping"), ("a: [", "not valid YAML")])
def test_a_broken_recipe_is_refused_with_its_reason(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        load_recipe(path)
