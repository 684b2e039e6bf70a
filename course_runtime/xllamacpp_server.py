"""``python -m course_runtime.xllamacpp_server FLAGS``: llama.cpp's server from the ``xllamacpp`` package, with llama-server's flags.

Not taught in a notebook: it is the engine of the offline model on macOS and
Linux aarch64 (``platforms.py``), where no prebuilt ``llama-server``
executable comes from PyPI.  ``xllamacpp`` (MIT, PyPI) is llama.cpp's own
server compiled into a Python extension: ``xllamacpp.Server(CommonParams)``
loads the model and serves the same HTTP endpoints as ``llama-server``, in
threads of this process, until the object is deleted.  It has no command
line, so this file reads the course's command line (``local_server.server_flags``,
the same flags the ``llama-server`` executable gets) and sets the fields of
``CommonParams`` that those flags set in llama.cpp's ``common/arg.cpp``:

==========================  ====================================================
flag                        ``CommonParams`` field
==========================  ====================================================
``--model F``               ``model.path``
``--alias A``               ``model_alias`` (a set of names)
``--host H`` ``--port P``   ``hostnames`` (a list), ``port``
``--ctx-size N``            ``n_ctx``
``--parallel N``            ``n_parallel``
``--threads N``             ``cpuparams.n_threads``
``--threads-batch N``       ``cpuparams_batch.n_threads``
``--seed N``                ``sampling.seed``
``--n-predict N``           ``n_predict``
``--jinja``                 ``use_jinja``
``--chat-template-file F``  ``chat_template`` (the file's text, as arg.cpp reads it)
``--no-webui``              ``ui = False``
``--cache-ram N``           ``cache_ram_mib``
``--slot-save-path D``      ``slot_save_path`` (arg.cpp appends the separator)
``--no-slots``              ``endpoint_slots = False``
``--metrics``               ``endpoint_metrics = True``
``--api-key-file F``        ``api_keys`` (one key per non-empty line)
``--no-cache-prompt``       ``cache_prompt = False``
``--cache-reuse N``         ``n_cache_reuse``
==========================  ====================================================

Any other flag is refused (exit status 2), so a flag the course adds later
cannot be dropped without a word.  The process runs until SIGINT/SIGTERM
(Ctrl-C) or until it is terminated (``server_process.stop``), then frees the
model.  Its log (llama.cpp's own lines) goes to stderr.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path


def parser() -> argparse.ArgumentParser:
    """The flags of ``local_server.server_flags`` (llama-server's spelling), and no others."""
    p = argparse.ArgumentParser(prog="python -m course_runtime.xllamacpp_server", allow_abbrev=False,
                                description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--alias", default="")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--ctx-size", type=int, default=0)
    p.add_argument("--parallel", type=int, default=1)
    p.add_argument("--threads", type=int, default=-1)
    p.add_argument("--threads-batch", type=int, default=-1)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--n-predict", type=int, default=-1)
    p.add_argument("--jinja", action="store_true")
    p.add_argument("--chat-template-file", default=None)
    p.add_argument("--no-webui", action="store_true")
    p.add_argument("--cache-ram", type=int, default=None)
    p.add_argument("--slot-save-path", default=None)
    p.add_argument("--no-slots", action="store_true")
    p.add_argument("--api-key-file", default=None)
    p.add_argument("--no-cache-prompt", action="store_true")
    p.add_argument("--cache-reuse", type=int, default=0)
    p.add_argument("--metrics", action="store_true")
    return p


def params_from_flags(argv: list[str]):
    """Build an ``xllamacpp.CommonParams`` from llama-server flags.

    Args:
        argv: the flags, e.g. ``local_server.server_flags(gguf)``.
    Returns:
        The ``CommonParams`` (see the module docstring for the mapping).
    Raises:
        SystemExit: an unknown or malformed flag (argparse, status 2).
        ImportError: ``xllamacpp`` is not installed.
        OSError: the chat template or key file cannot be read.
    """
    import xllamacpp

    opts = parser().parse_args(argv)
    params = xllamacpp.CommonParams()
    params.model.path = opts.model
    if opts.alias:
        params.model_alias = {opts.alias}
    params.hostnames = [opts.host]
    params.port = opts.port
    params.n_ctx = opts.ctx_size
    params.n_parallel = opts.parallel
    params.cpuparams.n_threads = opts.threads
    params.cpuparams_batch.n_threads = opts.threads_batch
    if opts.seed is not None:
        params.sampling.seed = opts.seed
    params.n_predict = opts.n_predict
    params.use_jinja = opts.jinja
    if opts.chat_template_file:
        params.chat_template = Path(opts.chat_template_file).read_text(encoding="utf-8")
    params.ui = not opts.no_webui
    if opts.cache_ram is not None:
        params.cache_ram_mib = opts.cache_ram
    if opts.slot_save_path:
        params.slot_save_path = str(Path(opts.slot_save_path)) + os.sep
    params.endpoint_slots = not opts.no_slots
    if opts.api_key_file:
        lines = Path(opts.api_key_file).read_text(encoding="utf-8-sig").splitlines()
        params.api_keys = [line.strip() for line in lines if line.strip()]
    params.cache_prompt = not opts.no_cache_prompt
    params.n_cache_reuse = 0 if opts.no_cache_prompt else opts.cache_reuse
    params.endpoint_metrics = opts.metrics
    return params


def main(argv: list[str] | None = None) -> int:
    """Serve until SIGINT/SIGTERM; returns 0, or 1 when the server did not start (the reason is in the log)."""
    params = params_from_flags(sys.argv[1:] if argv is None else argv)
    import xllamacpp

    try:
        server = xllamacpp.Server(params)  # returns once the model is loaded and the port listens
    except RuntimeError as exc:
        print(f"xllamacpp: the server did not start: {exc}", file=sys.stderr, flush=True)
        return 1
    print(f"xllamacpp {xllamacpp.__version__}: listening on {server.listening_address}", file=sys.stderr, flush=True)
    stop = threading.Event()
    # llama.cpp installs its own SIGINT/SIGTERM handler, which ends its loop but not this process;
    # Python's handlers replace it, and deleting the server ends the loop and frees the model.
    for name in ("SIGINT", "SIGTERM", "SIGBREAK"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), lambda *_: stop.set())
    while not stop.wait(0.5):
        pass
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
