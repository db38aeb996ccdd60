"""An installed layout of oxinfer inside bazel-bin: bin/oxinfer and
lib/oxinfer/plugins/*.so, which is where the host looks for plugins next to
its own folder, and share/oxinfer/default_model/, the model it runs when no
--model is given. `bazel build //:dist` then `bazel-bin/dist/bin/oxinfer`."""

def _copy(ctx, src, dest):
    out = ctx.actions.declare_file(ctx.label.name + "/" + dest)
    ctx.actions.run_shell(
        inputs = [src],
        outputs = [out],
        command = "cp -f '%s' '%s' && chmod u+w '%s'" % (src.path, out.path, out.path),
        mnemonic = "DistCopy",
        progress_message = "Installing %s" % dest,
    )
    return out

def _dist_impl(ctx):
    binary = _copy(ctx, ctx.executable.binary, "bin/" + ctx.executable.binary.basename)
    outputs = [binary]
    for target in ctx.attr.extra_binaries:
        exe = target[DefaultInfo].files_to_run.executable
        outputs.append(_copy(ctx, exe, "bin/" + exe.basename))
    for target in ctx.attr.plugins:
        for f in target.files.to_list():
            if f.basename.endswith(".so") or f.basename.endswith(".dylib"):
                outputs.append(_copy(ctx, f, "lib/oxinfer/plugins/" + f.basename))
    for f in ctx.files.default_model:
        outputs.append(_copy(ctx, f, "share/oxinfer/default_model/" + f.basename))
    # The whole tree is the runfiles too: a test that lists //:dist in `data`
    # runs bin/oxinfer, which finds ../lib and ../share next to its real path,
    # so every copy must be built before it (not only the executable).
    return [DefaultInfo(
        files = depset(outputs),
        executable = binary,
        runfiles = ctx.runfiles(files = outputs),
    )]

oxinfer_dist = rule(
    implementation = _dist_impl,
    attrs = {
        "binary": attr.label(executable = True, cfg = "target", mandatory = True),
        # Further programs of bin/ (oxinfer-server, which `oxinfer serve` runs).
        "extra_binaries": attr.label_list(cfg = "target"),
        "plugins": attr.label_list(allow_files = True),
        # The files of the model run when --model is not given.
        "default_model": attr.label_list(allow_files = True),
    },
    executable = True,
)
