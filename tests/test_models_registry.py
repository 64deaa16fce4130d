"""The model registry: one list of models, open to the user's own."""

import pytest

from tests.conftest import small_config
from tf1_train import models, train
from tf1_train.errors import UserError


def test_built_in_models_have_their_twins_listed_once():
    assert models.BUILT_IN[:2] == ("mlp", "lenet5")
    assert set(models.with_tf2()) >= set(models.BUILT_IN)
    assert set(models.with_keras()) < set(models.BUILT_IN)
    for name in models.BUILT_IN:
        assert callable(models.get_model(name))


@pytest.mark.parametrize(
    "ref, message",
    [
        ("no_such_pkg.model:build", "module 'no_such_pkg' not found"),
        ("tests.user_models.tiny:missing", "module 'tests.user_models.tiny' has no 'missing'"),
        ("tests.user_models.tiny:NOT_CALLABLE", "'NOT_CALLABLE' is a int, not callable"),
        ("tests.user_models.broken_import:build", "importing 'tests.user_models.broken_import'"),
        ("tests.user_models.tiny:", "expected package.module:function"),
    ],
)
def test_an_import_path_that_does_not_resolve_is_one_line(ref, message):
    with pytest.raises(UserError) as e:
        models.get_model(ref)
    assert str(e.value).startswith(f"--model={ref}: ") and message in str(e.value)
    assert "\n" not in str(e.value)


def test_an_unknown_name_lists_every_valid_one():
    with pytest.raises(UserError, match=r"^--model=vgg: .*valid: mlp, lenet5, resnet20"):
        small_config("unused", model="vgg")


def test_a_registered_model_trains_like_a_built_in_one(tmp_path):
    from tests.user_models import tiny

    models.register("tiny_for_test", tiny.build)
    try:
        assert "tiny_for_test" in models.names()
        result = train.run(small_config(tmp_path / "a", model="tiny_for_test", towers=2), 0)
        by_path = train.run(
            small_config(tmp_path / "b", model="tests.user_models.tiny:build", towers=2), 0
        )
    finally:
        models._REGISTRY.pop("tiny_for_test")
    assert result.summary["model"] == "tiny_for_test"
    assert result.losses == by_path.losses  # the same function, by name or by path
    assert result.summary["global_step"] == 5


def test_register_refuses_a_name_that_looks_like_a_path():
    with pytest.raises(ValueError):
        models.register("pkg.mod:fn", lambda *a: None)
