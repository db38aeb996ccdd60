"""@local_cuda: the CUDA toolkit of this machine, or nothing.

Finds nvcc ($CUDA_PATH/bin/nvcc, /usr/local/cuda/bin/nvcc, then nvcc on the
PATH) and writes @local_cuda//:defs.bzl with CUDA_AVAILABLE, NVCC and BIN2C.
Where there is no toolkit, or OXINFER_CUDA=0 is set, CUDA_AVAILABLE is False
and the CUDA backend (plugins/backends/cuda) and its place in the CI matrix
(tests/backend_matrix.bzl) are left out of the build: nothing else depends on
them. The toolkit is needed only to build; at run time the plugin opens the
driver (libcuda.so.1) itself and declines where there is none.

Only the driver API's header (cuda.h) is used from the toolkit's include
folder: the plugin links nothing of CUDA.
"""

def _find_nvcc(ctx):
    candidates = []
    cuda_path = ctx.os.environ.get("CUDA_PATH", "")
    if cuda_path:
        candidates.append(cuda_path + "/bin/nvcc")
    candidates.append("/usr/local/cuda/bin/nvcc")
    for c in candidates:
        p = ctx.path(c)
        if p.exists:
            return p
    return ctx.which("nvcc")

def _cuda_configure_impl(ctx):
    nvcc = None
    why = ""
    if ctx.os.environ.get("OXINFER_CUDA", "1") == "0":
        why = "OXINFER_CUDA=0"
    else:
        nvcc = _find_nvcc(ctx)
        if nvcc == None:
            why = "no nvcc (set CUDA_PATH to the toolkit)"
    root = nvcc.dirname.dirname if nvcc != None else None
    if root != None and not ctx.path(str(root) + "/include/cuda.h").exists:
        why = "%s has no include/cuda.h" % root
        nvcc = None
    if nvcc != None:
        ctx.symlink(str(root) + "/include", "include")
        ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

# The driver API's declarations only (the plugin opens libcuda.so.1 at run time).
cc_library(
    name = "cuda_headers",
    hdrs = ["include/cuda.h"],
    includes = ["include"],
)
""")
        ctx.file("defs.bzl", """# Written by third_party/cuda/cuda_configure.bzl.
CUDA_AVAILABLE = True
CUDA_NOTE = "CUDA toolkit at {root}"
NVCC = "{nvcc}"
BIN2C = "{root}/bin/bin2c"
""".format(root = root, nvcc = nvcc))
    else:
        ctx.file("BUILD", "")
        ctx.file("defs.bzl", """# Written by third_party/cuda/cuda_configure.bzl.
CUDA_AVAILABLE = False
CUDA_NOTE = "no CUDA backend in this build: {why}"
NVCC = ""
BIN2C = ""
""".format(why = why))

cuda_configure = repository_rule(
    implementation = _cuda_configure_impl,
    environ = ["OXINFER_CUDA", "CUDA_PATH", "PATH"],
    local = True,
)
