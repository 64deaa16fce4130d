"""Bad-input rows for a user's own code (--model, --preprocess, --loss,
--tf2_model as package.module:function) and for the legacy training rules'
flags; tests/test_bad_input.py runs them with the rest of the table."""

from __future__ import annotations

from tests.bad_input_rows import Bad

TF2_MAIN = "tf1_train.tf2.main"

# The legacy training rules (tests/test_training_rules.py): each out of range.
RULES = [
    Bad("adam_beta1=1", ["--adam_beta1=1"], "--adam_beta1: got 1.0", "must be in [0, 1)"),
    Bad("adam_beta2<0", ["--adam_beta2=-0.1"], "--adam_beta2: got -0.1", "must be in [0, 1)"),
    Bad("adam_epsilon=0", ["--adam_epsilon=0"], "--adam_epsilon: got 0.0", "must be > 0"),
    Bad("rmsprop_decay=1", ["--rmsprop_decay=1"], "--rmsprop_decay", "must be in [0, 1)"),
    Bad("rmsprop_momentum=2", ["--rmsprop_momentum=2"], "--rmsprop_momentum", "in [0, 1)"),
    Bad("rmsprop_epsilon<0", ["--rmsprop_epsilon=-1e-10"], "--rmsprop_epsilon", "must be > 0"),
    Bad(
        "adagrad_initial_accumulator=0",
        ["--optimizer=adagrad", "--adagrad_initial_accumulator=0"],
        "--adagrad_initial_accumulator",
        "must be > 0",
    ),
    Bad("lr_end<0", ["--lr_schedule=polynomial", "--lr_end=-1"], "--lr_end", "must be >= 0"),
    Bad("lr_power=0", ["--lr_schedule=polynomial", "--lr_power=0"], "--lr_power", "must be > 0"),
    Bad("lr_staircase constant", ["--lr_staircase"], "--lr_staircase", "exponential only"),
    Bad("lr_warmup_steps<0", ["--lr_warmup_steps=-5"], "--lr_warmup_steps", "must be >= 0"),
    Bad("tf2 keras warmup", ["--route=keras", "--lr_warmup_steps=5"], "no --lr_warmup_steps",
        "use --route=custom", module=TF2_MAIN),
    Bad("gradient_clip_norm<0", ["--gradient_clip_norm=-1"], "--gradient_clip_norm", ">= 0"),
    Bad("gradient_clip_norm=nan", ["--gradient_clip_norm=nan"], "--gradient_clip_norm", ">= 0"),
    Bad("moving_average_decay=1", ["--moving_average_decay=1"], "--moving_average_dec", "[0, 1)"),
    Bad(
        "tf2 keras moving_average_decay",
        ["--route=keras", "--moving_average_decay=0.99"],
        "--moving_average_decay",
        "use --route=custom",
        module=TF2_MAIN,
    ),
    Bad(
        "tf2 keras clip on 2 replicas",
        ["--route=keras", "--num_gpus=2", "--gradient_clip_norm=1"],
        "--gradient_clip_norm",
        "use --route=custom or --num_gpus=1",
        module=TF2_MAIN,
    ),
    Bad("precision=fp8", ["--precision=fp8"], "--precision", "fp32, bf16, fp16"),
    Bad("loss_scale with bf16", ["--precision=bf16", "--loss_scale=128"], "--loss_scale",
        "fp16 only"),
    Bad("loss_scale<1", ["--precision=fp16", "--loss_scale=0.5"], "--loss_scale", "a number >= 1"),
    Bad("loss_scale=big", ["--precision=fp16", "--loss_scale=big"], "--loss_scale", "dynamic, or"),
    Bad("auto_mixed_precision with bf16", ["--auto_mixed_precision", "--precision=bf16"],
        "--auto_mixed_precision", "--precision=fp32"),
    Bad("tf2 auto_mixed_precision", ["--auto_mixed_precision"], "--auto_mixed_precision",
        "--precision=bf16 or fp16", module=TF2_MAIN),
    Bad("tf2 keras fixed loss_scale", ["--route=keras", "--precision=fp16", "--loss_scale=128"],
        "--loss_scale=128", "use --loss_scale=dynamic or --route=custom", module=TF2_MAIN),
]  # fmt: skip


# The user's own code (tests/user_models/), named as package.module:function.
_UM = "tests.user_models"
TWIN = "examples.cifar10_tutorial.model_tf2:Cifar10Tutorial"
USER_CODE = [
    Bad(
        "model module missing",
        ["--model=no_such_pkg.net:build"],
        "--model=no_such_pkg.net:build",
        "module 'no_such_pkg' not found",
    ),
    Bad(
        "model function missing",
        [f"--model={_UM}.tiny:nope"],
        f"--model={_UM}.tiny:nope",
        "has no 'nope'",
    ),
    Bad("model not callable", [f"--model={_UM}.tiny:NOT_CALLABLE"], "NOT_CALLABLE", "not callable"),
    Bad(
        "model module fails to import",
        [f"--model={_UM}.broken_import:build"],
        f"--model={_UM}.broken_import:build",
        "RuntimeError: this module needs a GPU driver",
    ),
    Bad(
        "model module defines a flag tf1_train has",
        [f"--model={_UM}.defines_flags:inference"],
        f"--model={_UM}.defines_flags:inference: importing '{_UM}.defines_flags' failed",
        "it defines --batch_size at import, as TF1 scripts did, and tf1_train has that flag",
    ),
    Bad(
        "model conds on is_training",
        [f"--model={_UM}.bad:conds_on_is_training"],
        f"--model={_UM}.bad:conds_on_is_training: raised TypeError",
        "is_training is a Python bool here: branch with `if is_training:`",
    ),
    Bad(
        "model raises",
        [f"--model={_UM}.bad:raises"],
        f"--model={_UM}.bad:raises",
        "raised ValueError: this model was written for 224x224 images (at ",
    ),
    Bad(
        "model returns a list",
        [f"--model={_UM}.bad:returns_a_list"],
        f"--model={_UM}.bad:returns_a_list",
        "returned a list, not a tensor",
    ),
    Bad(
        "model makes a placeholder",
        [f"--model={_UM}.bad:feeds_keep_prob"],
        f"--model={_UM}.bad:feeds_keep_prob: makes placeholder 'keep_prob' (float32) (at ",
        "which nothing feeds",
    ),
    Bad(
        "model logits for another class count",
        [f"--model={_UM}.bad:seven_classes"],
        f"--model={_UM}.bad:seven_classes: returned logits of shape [",
        ", 7]; expected [batch, 10] (10 classes in the dataset)",
    ),
    Bad(
        "model logits of rank 3",
        [f"--model={_UM}.bad:rank3_logits"],
        f"--model={_UM}.bad:rank3_logits: returned logits of shape [",
        ", 1, 10]; expected [batch, 10]",
    ),
    Bad(
        "model int logits",
        [f"--model={_UM}.bad:int_logits"],
        f"--model={_UM}.bad:int_logits: returned int32 logits",
        "expected float ones",
    ),
    Bad(
        "model without variables",
        [f"--model={_UM}.bad:no_variables"],
        f"--model={_UM}.bad:no_variables: makes no trainable variable",
        "tf.compat.v1.get_variable",
    ),
    Bad(
        "model with tf.layers, no compat",
        [f"--model={_UM}.bad:legacy_layers"],
        f"--model={_UM}.bad:legacy_layers: raised AttributeError",
        "call tf1_train.compat.install() at the top of your module",
    ),
    Bad(
        "model syntax",
        ["--model=tests.user_models.tiny"],
        "--model=tests.user_models.tiny",
        "not a built-in or registered model; valid: mlp",
    ),
    Bad(
        "preprocess changes the label",
        [f"--preprocess={_UM}.inputs:changes_label"],
        f"--preprocess={_UM}.inputs:changes_label",
        "must return the label it was given",
    ),
    Bad(
        "preprocess wrong rank",
        [f"--preprocess={_UM}.inputs:flattens"],
        f"--preprocess={_UM}.inputs:flattens",
        "must return a float HWC image (rank 3)",
    ),
    Bad(
        "preprocess random size",
        [f"--preprocess={_UM}.inputs:random_size"],
        f"--preprocess={_UM}.inputs:random_size",
        "of shape (None, None, 1); it must return a float HWC image (rank 3) of known static shape",
    ),
    Bad(
        "preprocess raises",
        [f"--preprocess={_UM}.inputs:raises"],
        f"--preprocess={_UM}.inputs:raises",
        "raised ValueError: expected a 32x32 image",
    ),
    Bad("loss not a path", ["--loss=mse"], "--loss", "expected package.module:function"),
    Bad(
        "loss as a column",
        [f"--loss={_UM}.bad:column_loss"],
        f"--loss={_UM}.bad:column_loss: returned a loss of shape [",
        ", 1]; expected a scalar (the batch mean) or one value per example [",
    ),
    Bad(
        "tf2 loss as a column",
        [f"--loss={_UM}.bad:column_loss"],
        f"--loss={_UM}.bad:column_loss: returned a loss of shape [",
        ", 1]; expected a scalar (the batch mean) or one value per example [",
        module=TF2_MAIN,
    ),
    Bad(
        "loss int",
        [f"--loss={_UM}.bad:int_loss"],
        f"--loss={_UM}.bad:int_loss",
        "returned a int32 loss; expected a float one",
    ),
    Bad(
        "loss constant",
        [f"--loss={_UM}.bad:constant_loss"],
        f"--loss={_UM}.bad:constant_loss",
        "does not depend on the logits",
    ),
    Bad(
        "tf2 loss raises",
        [f"--loss={_UM}.bad:onehot_loss"],
        f"--loss={_UM}.bad:onehot_loss: raised ValueError",
        "are incompatible",
        module=TF2_MAIN,
    ),
    Bad(
        "loss adds the model's terms again",
        [f"--model={_UM}.regularized:build", f"--loss={_UM}.regularized:with_regularization"],
        f"--loss={_UM}.regularized:with_regularization: the loss it returns includes 1 term",
        "return the data loss only",
    ),
    Bad(
        "weight decay and own regularization",
        [f"--model={_UM}.regularized:build", "--weight_decay=0.001"],
        "--weight_decay=0.001",
        "the model adds its own regularization",
    ),
    Bad(
        "tf2 twin missing",
        [f"--model={_UM}.tiny:build"],
        f"--model={_UM}.tiny:build",
        "needs its TF2 twin: give --tf2_model=package.module:Class",
        module=TF2_MAIN,
    ),
    Bad(
        "tf2 twin without the training argument",
        [f"--model={_UM}.tiny:build", f"--tf2_model={_UM}.twins:NoTrainingArgument"],
        f"--tf2_model={_UM}.twins:NoTrainingArgument: raised TypeError",
        "unexpected keyword argument 'training'",
        module=TF2_MAIN,
    ),
    Bad(
        "tf2 twin logits for another class count",
        [f"--model={_UM}.tiny:build", f"--tf2_model={_UM}.twins:SevenClasses"],
        f"--tf2_model={_UM}.twins:SevenClasses: returned logits of shape [2, 7]",
        "expected [batch, 10]",
        module=TF2_MAIN,
    ),
    Bad(
        "tf2 twin with other variable names",
        [f"--model={_UM}.tiny:build", f"--tf2_model={_UM}.twins:KerasNames"],
        f"--tf2_model={_UM}.twins:KerasNames: its variables are not --model={_UM}.tiny:build's",
        "TF1's hidden/w [64, 32] is missing; its dense/kernel [64, 32] is not in TF1",
        module=TF2_MAIN,
    ),
    Bad(
        "tf2 twin in bf16",
        [f"--model={_UM}.tiny:build", f"--tf2_model={TWIN}", "--precision=bf16"],
        "--precision=bf16",
        "use --precision=fp32 on the TF2 path",
        module=TF2_MAIN,
    ),
    Bad(
        "tf2 twin not importable",
        [f"--model={_UM}.tiny:build", "--tf2_model=nowhere:Net"],
        "--tf2_model=nowhere:Net",
        "module 'nowhere' not found",
        module=TF2_MAIN,
    ),
    # --init_checkpoint: a fresh run from a checkpoint's weights (tests/test_warm_start.py)
    Bad("init_checkpoint missing", ["--init_checkpoint={tmp}/none/model.ckpt-5"],
        "--init_checkpoint={tmp}/none/model.ckpt-5", "no checkpoint there"),
    Bad("init_checkpoint dir without one", ["--init_checkpoint={tmp}"], "--init_checkpoint={tmp}",
        "the directory holds no TF1 checkpoint"),
    Bad(
        "init_checkpoint of another model",
        ["--model=lenet5", "--init_checkpoint={run}", "--train_dir={tmp}/fresh"],
        "--init_checkpoint={run}/model.ckpt-",
        "is not in it",
    ),
    Bad("init_exclude not a regex", ["--init_exclude=logits/("], "--init_exclude",
        "'logits/(' is not a regular expression"),
    Bad("tf2 keras init_checkpoint", ["--route=keras", "--init_checkpoint={run}"],
        "--init_checkpoint", "the TF2 custom route only", module=TF2_MAIN),
    Bad("tf2 init_checkpoint missing", ["--init_checkpoint={tmp}/none"],
        "--init_checkpoint={tmp}/none", "no checkpoint there", module=TF2_MAIN),
]  # fmt: skip
