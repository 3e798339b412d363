"""What the rank-0 rewrite matches: qualified names, and calls safe to skip on other ranks.

A statement guarded with `if ddp_is_main():` no longer runs on the other ranks, so its
arguments must not do work every rank needs: a `print(evaluate(model))` whose evaluation
runs DDP forwards or all_reduce would hang rank 0 alone. Only arguments built from calls
known to be free of such effects are guarded; anything else keeps printing on every rank.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Final

import libcst as cst
import libcst.matchers as m

from dp2ddp.facts import GENERATED_MODULE
from dp2ddp.transforms._support.names import TORCH_SAVE as TORCH_SAVE

LOG_METHODS: Final = frozenset(
    {"debug", "info", "warning", "warn", "error", "critical", "exception", "log", "fatal"}
)
LOGGING_FUNCTIONS: Final = frozenset(f"logging.{name}" for name in LOG_METHODS)
LOGGING_GET_LOGGER: Final = frozenset({"logging.getLogger"})
#: loguru's global logger: `from loguru import logger`.
#: A logger's methods, loguru's own two with them (a logger handed in may be loguru's).
LOGGER_METHODS: Final = LOG_METHODS | {"success", "trace"}
LOGURU_METHODS: Final = frozenset(f"loguru.logger.{name}" for name in LOGGER_METHODS)
PRINT: Final = frozenset(
    {"builtins.print", "pprint.pprint", "pprint.pp"}
    | {f"sys.{stream}.{method}" for stream in ("stdout", "stderr") for method in ("write", "flush")}
    | {f"tqdm.{m}tqdm.write" for m in ("", "auto.", "autonotebook.", "notebook.", "std.")}
    # prints in colour: a print on every rank like the plain one
    | {"termcolor.cprint", "rich.print"}
)
#: Calls that run a shell command or another program as a child process, their result
#: dropped: what the child does (GDANet's `os.system('cp main.py ' + folder)` backups, a
#: script that saves) is not read here, and each rank runs it (stop 39, v4-F): DP087.
CHILD_PROCESSES: Final = frozenset(
    {
        "os.system",
        "subprocess.run",
        "subprocess.call",
        "subprocess.check_call",
        "subprocess.check_output",
        "subprocess.Popen",
        "subprocess.getstatusoutput",
        "subprocess.getoutput",
        "os.popen",
    }
)
#: What a shell reads between commands or as a substitution: a command text holding one of
#: these in its own letters may run more than `mkdir -p` (`mkdir -p d && cp a d`).
_SHELL_OPERATORS: Final = frozenset(";&|<>`$\n")


def repeat_safe_command(call: cst.Call, names: set[str]) -> bool:
    """`call` (of CHILD_PROCESSES, qualified as `names`) runs `mkdir -p PATH` and nothing
    else: every rank running it at once makes the folder or finds it made, as
    `os.makedirs(path, exist_ok=True)` on every rank does (the migration leaves that to
    every rank); proved safe to repeat, no DP087 (zswldxb/PCCLS@77dac77 tools/main.py:116,
    stop 62: `os.system(f"mkdir -p {exp_path}")`). The command: a string (`os.system`, or a
    subprocess call with `shell=True`) whose own letters, the values put in left out
    (f-string, `+`, `%`, `.format`), start `mkdir -p ` and hold no shell operator; or an
    argument list `["mkdir", "-p", ...]` (no shell). Not `mkdir` without `-p`: a second
    rank's fails."""
    if not call.args or call.args[0].keyword is not None or call.args[0].star:
        return False
    command = call.args[0].value
    if isinstance(command, (cst.List, cst.Tuple)):
        head = [e.value for e in command.elements[:2] if isinstance(e, cst.Element)]
        return (
            len(command.elements) > 2
            and [_text(v) for v in head] == ["mkdir", "-p"]
            and all(isinstance(e, cst.Element) for e in command.elements)
        )
    shell = names & {"os.system"} or any(
        a.keyword is not None
        and a.keyword.value == "shell"
        and isinstance(a.value, cst.Name)
        and a.value.value == "True"
        for a in call.args
    )
    letters = _text(command)
    return (
        bool(shell)
        and letters is not None
        and (letters.lstrip().startswith("mkdir -p ") and not set(letters) & _SHELL_OPERATORS)
    )


def _text(node: cst.BaseExpression) -> str | None:
    """The letters a string expression writes itself, each value put in as a space; None
    where its start is no string of its own."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(node, cst.FormattedString):
        return "".join(
            part.value if isinstance(part, cst.FormattedStringText) else " " for part in node.parts
        )
    if isinstance(node, cst.ConcatenatedString):
        left, right = _text(node.left), _text(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        left, right = _text(node.left), _text(node.right)
        return None if left is None else left + (" " if right is None else right)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
        return _text(node.left)  # `"mkdir -p %s" % path`: the format's own letters
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "format"
    ):
        return _text(node.func.value)
    return None


#: Calls that copy or move a file or tree from their first argument to their second.
COPIES: Final = frozenset(
    {
        "shutil.copyfile",
        "shutil.copy",
        "shutil.copy2",
        "shutil.copytree",
        "shutil.move",
        # a link at the second argument to the first: every rank linked one path, and the
        # rank that did not remove the old link first raised FileExistsError
        # (HRNet/HRNet-Facial-Landmark-Detection@f776dbe's `latest.pth`, stop 47 v1-C)
        "os.symlink",
        "os.link",
        # distutils' (setuptools' since Python 3.12) tree and file copies: every rank
        # copied a run folder into `latest_exp/` (inspire-group/SSD@cf2e162, stop 45 v1-B)
        *(
            f"{package}distutils.{name}"
            for package in ("", "setuptools._")
            for name in ("dir_util.copy_tree", "file_util.copy_file", "file_util.move_file")
        ),
    }
)
#: haven-ai's experiment helpers (`from haven import haven_utils as hu`), each writing at its
#: first argument: `hu.torch_save(path, obj)` writes `path + ".tmp"` and renames it, so two
#: ranks racing for one checkpoint stopped rank 0 with FileNotFoundError on the rename
#: (ElementAI/embedding-propagation@e7bfc71's trainval.py, stop 56 v4-B); `save_pkl` does
#: the same, `save_json` and `save_txt` wrote the one file twice.
HAVEN_WRITES: Final = frozenset(
    f"haven.haven_utils.{name}" for name in ("torch_save", "save_pkl", "save_json", "save_txt")
)
#: Calls that write, copy or remove files: each rank would repeat them (duplicated rows,
#: FileNotFoundError when two ranks remove or move one file; two ranks' different contents
#: racing for one path: FloWaveNet's `librosa.output.write_wav` of a per-rank sample, stop 28
#: S2). Statement calls go on rank 0. The one declared list of file sinks, by qualified name
#: (a library's alias, `import soundfile as sf`, resolves to it): a library that writes
#: files is added here, nowhere else.
FILE_WRITES: Final = frozenset(
    {
        # audio
        "librosa.output.write_wav",
        "soundfile.write",
        "scipy.io.wavfile.write",
        "torchaudio.save",
        # images and video
        "imageio.v2.imwrite",
        "imageio.v3.imwrite",
        "imageio.mimsave",
        "imageio.mimwrite",
        "imageio.v2.mimsave",
        "skimage.io.imsave",
        "matplotlib.image.imsave",
        "matplotlib.pyplot.imsave",
        "tifffile.imwrite",
        "tifffile.imsave",
        "torchvision.io.write_png",
        "torchvision.io.write_jpeg",
        "torchvision.io.write_video",
        "PIL.Image.Image.save",
        "mmcv.imwrite",
        # arrays, objects, models
        "nibabel.save",
        "joblib.dump",
        "dill.dump",
        "toml.dump",
        "mmcv.dump",
        "torch.onnx.export",
        # checkpoint writers of libraries (stop 63 s2; an unknown library's function named
        # as a writer and handed the model: object_saves.library_saver)
        "safetensors.torch.save_file",
        "safetensors.torch.save_model",
        "safetensors.numpy.save_file",
        "mmcv.runner.save_checkpoint",
        "mmcv.runner.checkpoint.save_checkpoint",
        "mmengine.runner.save_checkpoint",
        "mmengine.runner.checkpoint.save_checkpoint",
        "pandas.to_pickle",
        *COPIES,
        "shutil.rmtree",
        # an archive of a folder written at its first argument (+ the format's suffix):
        # every rank wrote one `src_backup.tar.gz` (ELEKTRONN/elektronn3@8111e5d's
        # Backup.archive_backup, stop 54 x5)
        "shutil.make_archive",
        # a change to a file's mode, owner or times: the original changed it once, and a
        # file rank 0 just wrote is not there yet for another rank (elektronn3's
        # `shutil.copyfile(script, dst)` then `os.chmod(dst, 0o755)`: FileNotFoundError on
        # rank 1, stop 54 x5); with the write on rank 0 it goes there too
        "os.chmod",
        "os.chown",
        "os.utime",
        "shutil.copymode",
        "shutil.copystat",
        "os.remove",
        "os.unlink",
        "os.rename",
        "os.replace",
        "os.rmdir",
        "numpy.save",
        "numpy.savez",
        "numpy.savez_compressed",
        "numpy.savetxt",
        "pickle.dump",
        "json.dump",
        "yaml.dump",
        "yaml.safe_dump",
        "torch.jit.save",
        "torchvision.utils.save_image",
        "matplotlib.pyplot.savefig",
        "cv2.imwrite",
        "imageio.imwrite",
        "imageio.imsave",
        "scipy.misc.imsave",
        "scipy.io.savemat",
        "scipy.io.matlab.savemat",
        *HAVEN_WRITES,
    }
)
#: The FILE_WRITES that write only where their destination is given, and else return the
#: text: `yaml.dump(data)` (stream=None), mmcv's `dump(obj, file=None, file_format=...)`; the
#: destination's keyword and its position. Without it the call writes nothing, and its value
#: is that text: put on rank 0 as a write, BraTS-DMFNet's `AttrDict.__str__` (`return
#: yaml.dump(...)`) returned None off rank 0 and `str(args)` raised TypeError on rank 1
#: (China-LiuXiaopeng/BraTS-DMFNet@3194707, stop 58 v4-A).
TEXT_WITHOUT_DESTINATION: Final = {
    "yaml.dump": ("stream", 1),
    "yaml.safe_dump": ("stream", 1),
    "mmcv.dump": ("file", 1),
}


def returns_text(call: cst.Call, names: set[str]) -> bool:
    """A dump of TEXT_WITHOUT_DESTINATION called with no destination (or `None`): it writes
    no file, it returns the text. A `*args`/`**kwargs` call may hand one: not this."""
    found = names & TEXT_WITHOUT_DESTINATION.keys()
    if not found or any(a.star for a in call.args):
        return False
    keyword, position = TEXT_WITHOUT_DESTINATION[min(found)]
    given = [
        a.value
        for i, a in enumerate(call.args)
        if (a.keyword is None and i == position)
        or (a.keyword is not None and a.keyword.value == keyword)
    ]
    return all(isinstance(v, cst.Name) and v.value == "None" for v in given)


#: The FILE_WRITES that remove the file or directory at their first argument.
REMOVALS: Final = frozenset({"shutil.rmtree", "os.remove", "os.unlink", "os.rmdir"})
#: The FILE_WRITES that write at their first argument, and calls that read a file at their
#: first argument: a path written on rank 0 and read back by every rank in the module gets a
#: barrier between them (barriers.py), or DP054.
WRITES_AT_FIRST: Final = frozenset(
    {
        # MATLAB files (scipy.io.savemat, read back by loadmat: Xiaoccer/MobileFaceNet_Pytorch
        # @26bd8d2's LFW features, class v1-B of stop 40)
        "scipy.io.savemat",
        "scipy.io.matlab.savemat",
        "numpy.save",
        "numpy.savez",
        "numpy.savez_compressed",
        "numpy.savetxt",
        "librosa.output.write_wav",
        "soundfile.write",
        "scipy.io.wavfile.write",
        "torchaudio.save",
        "cv2.imwrite",
        "imageio.imwrite",
        "imageio.v2.imwrite",
        "imageio.v3.imwrite",
        "imageio.imsave",
        "skimage.io.imsave",
        "tifffile.imwrite",
        *HAVEN_WRITES,
    }
)
#: The FILE_WRITES that write at their second argument (`fp`): torchvision's image save,
#: whose file the program reads back with PIL (`save_image(x, path)` on rank 0, then
#: `Image.open(path)` on every rank: rank 1 FileNotFoundError, treellor/DeepLearning@5ab131e,
#: stop 55 v2-C).
WRITES_AT_SECOND: Final = frozenset({"torchvision.utils.save_image"})
READS_AT_FIRST: Final = frozenset(
    {
        # a file's size, times or mode: a file rank 0 is writing is not there yet for
        # another rank, or not whole (stop 54 x5; `os.path.exists` is no read: a cache's
        # test before it is written)
        "os.stat",
        "os.path.getsize",
        "os.path.getmtime",
        "scipy.io.loadmat",
        "scipy.io.matlab.loadmat",
        "numpy.load",
        "numpy.loadtxt",
        "numpy.genfromtxt",
        "pandas.read_csv",
        "pandas.read_pickle",
        "pandas.read_parquet",
        "pandas.read_json",
        "librosa.load",
        "soundfile.read",
        "scipy.io.wavfile.read",
        "torchaudio.load",
        "cv2.imread",
        "imageio.imread",
        "imageio.v2.imread",
        "imageio.v3.imread",
        "skimage.io.imread",
        "tifffile.imread",
        "joblib.load",
        "PIL.Image.open",
        # what haven's savers wrote, read back (a resumed experiment's checkpoint)
        *(f"haven.haven_utils.{n}" for n in ("torch_load", "load_pkl", "load_json", "load_txt")),
    }
)
#: Libraries whose functions never read a file at a path they are handed (its text, a
#: directory made, a log line), or read it only as READS_AT_FIRST and the rest say.
_NOT_READERS: Final = frozenset(
    {"os", "sys", "logging", "warnings", "time", "math", "re", "json", "string", "shutil"}
    | {"pathlib", "posixpath", "ntpath", "glob", "fnmatch", "torch", "builtins"}
)


def library_reader(name: str) -> bool:
    """A library's function (a qualified name) that may read a file at a path handed to it
    first: not one the tables here already say (a write, a copy), nor one of _NOT_READERS'
    libraries (stop 52 w4: `sed_eval.io.load_event_list(path)`, `np.fromfile(path)`)."""
    top = name.partition(".")[0]
    if "." not in name or top in _NOT_READERS or "<locals>" in name:
        return False
    return name not in WRITES_AT_FIRST | COPIES | TORCH_SAVE | FILE_WRITES


#: PIL images: `Image.fromarray(x).save(path)`, or `img.save(path)` where `img` is bound from
#: one of these (`.save` on anything else is too common a name to guard).
PIL_IMAGES: Final = frozenset(f"PIL.Image.{name}" for name in ("open", "fromarray", "new"))
#: `with h5py.File(path, "w") as f:` is guarded whole like a `with open(path, "w")`.
H5PY_FILE: Final = frozenset({"h5py.File", "h5py._hl.files.File"})
#: A library's writer object opened on a path, written through its handle and closed by
#: its `with` (Lornatang/PyTorch-GAN@ceacff4's `with imageio.get_writer("x.gif") as w:
#: w.append_data(frame)`: every rank wrote the one GIF, round 23): always for writing.
WRITER_OPENERS: Final = frozenset({"imageio.get_writer", "imageio.v2.get_writer"})
#: Methods that write a file whatever their receiver (a figure, a DataFrame, a Path; a
#: Hugging Face model, tokenizer or config's `save_pretrained(folder)`, which writes the
#: folder: Morizeyao/GPT2-Chinese@bbb4465's `model_to_save.save_pretrained(...)` ran on every
#: rank, stop 43 v2-C).
FILE_WRITE_METHODS: Final = frozenset(
    {"savefig", "to_csv", "to_json", "write_text", "write_bytes", "save_pretrained"}
)
#: Functions that open a file at their first argument in a mode given as their second (or
#: `mode=`), "r" when left out, as open() does: the standard library's other openers too.
#: A speech program's `wave.open(path, "w")` in a helper module wrote one sample file from
#: every rank, and an NLP program's `codecs.open(log, "a")` a log with each line once per
#: rank (AidenMoosa/Tacotron2@699a211 audio_utilities.py, stop 48 v1-A).
OPEN: Final = frozenset(
    {"builtins.open", "io.open", "codecs.open", "gzip.open", "bz2.open", "lzma.open", "wave.open"}
    # archives (a tarfile mode names its compression after ":" or "|": open_mode), written
    # by every rank at one path before (stop 54 x5)
    | {"zipfile.ZipFile", "tarfile.open", "tarfile.TarFile.open"}
)
#: The keyword an OPEN function takes its file as (open's `file`, codecs' and gzip's
#: `filename`, wave's `f`, tarfile's `name`).
OPEN_FILE_KEYWORDS: Final = frozenset({"file", "filename", "f", "name"})
MAKEDIRS: Final = frozenset({"os.makedirs"})
MKDIR: Final = frozenset({"os.mkdir"})
#: Progress bars of other libraries whose `.write(line)` prints a line under the bar, as
#: tqdm's does (fastprogress's master_bar: chaitjo/graph-convnet-tsp@8976ffd, stop 31 T2).
OTHER_BARS: Final = frozenset(
    f"fastprogress.{module}{name}"
    for module in ("", "fastprogress.")
    for name in ("master_bar", "progress_bar")
)
#: Methods by which an object of a library prints or logs a line (`bar.write(...)`,
#: `console.print(...)`, `run.log(...)`): such a call of an object dp2ddp does not know is
#: not proved to print once (DP080).
OUTPUT_METHODS: Final = frozenset({"write", "print", "log"})
#: Top-level packages whose objects' output methods the rank-0 rules already know or that
#: print nothing (tensors' and arrays' `.log()` compute).
KNOWN_PACKAGES: Final = frozenset(
    {"torch", "torchvision", "numpy", "tqdm", "logging", "wandb", "tensorboardX", "PIL"}
)
TQDM: Final = frozenset(
    f"tqdm.{module}{name}"
    for module in ("", "auto.", "autonotebook.", "notebook.", "std.", "rich.", "asyncio.")
    for name in ("tqdm", "trange")
)
TORCH_LOAD: Final = frozenset({"torch.load", "torch.serialization.load"})
#: TensorBoard writers: torch's, tensorboardX's, and tensorboard_logger's Logger (the
#: CMC/CRD family's `tb_logger.Logger(logdir=..., flush_secs=2)` then `log_value(...)`:
#: created on every rank, each process wrote its own event file of its own figures into
#: the same directory; HobbitLong/CMC@7b227be, fresh round stop 30, class K1).
SUMMARY_WRITER: Final = frozenset(
    {
        "torch.utils.tensorboard.SummaryWriter",
        "torch.utils.tensorboard.writer.SummaryWriter",
        "tensorboardX.SummaryWriter",
        "tensorboardX.writer.SummaryWriter",
        # tensorboard_logger's own writer class (`Logger(logdir, flush_secs=2)`,
        # `logger.log_value(name, value, step)`): a SummaryWriter by another name
        "tensorboard_logger.Logger",
        "tensorboard_logger.tensorboard_logger.Logger",
        # TensorFlow 1's event writer (TF_FILE_WRITERS below)
        "tensorflow.summary.FileWriter",
        "tensorflow.compat.v1.summary.FileWriter",
    }
)
#: Clients of a plotting or experiment server (jhjacobsen/invertible-resnet@630e886's
#: `viz = visdom.Visdom(port=...)`): made on every rank, every plot call of rank 1 reached
#: the server beside rank 0's (stop 41's v2-F). Rank 0's, a DdpNullClient elsewhere
#: (writers.py): unlike a SummaryWriter it names no folder, and it answers
#: `check_connection()` truthily (programs assert it).
PLOT_CLIENTS: Final = frozenset({"visdom.Visdom", "visdom.visdom.Visdom"})
#: tensorboard_logger's module functions: `configure(logdir)` makes the default Logger,
#: `log_value(...)` and its kin write through it. Rank 0's, as a SummaryWriter's calls:
#: on every rank, the ranks of one host write one events file (named by host and second).
WRITER_FUNCTIONS: Final = frozenset(
    f"{module}.{name}"
    for module in ("tensorboard_logger", "tensorboard_logger.tensorboard_logger")
    for name in ("configure", "log_value", "log_histogram", "log_images", "unconfigure")
)
#: Of those, the one that makes the default Logger: kept on every rank, off rank 0 on a
#: scratch folder (writers.py), since `log_value` may run anywhere (stop 41's v3-G).
#: TensorFlow 2's writer, `tf.summary.create_file_writer(logdir, ...)` then
#: `with writer.as_default(): tf.summary.scalar(...)` (jagjeet-singh/argoverse-forecasting@
#: 27696a1 logger.py:25: built and written on every rank, TensorBoard events from both; stop
#: 53 w2): made on every rank as `configure` is, off rank 0 on a scratch folder, so the
#: writer's own `as_default()`, `flush()` and `close()` work there and its events go
#: nowhere rank 0 writes. TensorFlow 1's `FileWriter(logdir)` is a SummaryWriter's kind
#: (`add_summary`, `flush`, `close`: DdpNullWriter's no-ops).
TF_FILE_WRITERS: Final = frozenset(
    f"{module}.summary.create_file_writer" for module in ("tensorflow", "tensorflow.compat.v2")
)
WRITER_CONFIGURE: Final = (
    frozenset(n for n in WRITER_FUNCTIONS if n.endswith(".configure")) | TF_FILE_WRITERS
)
WANDB_INIT: Final = frozenset({"wandb.init", "wandb.sdk.init"})

_PURE_BUILTINS: Final = frozenset(
    f"builtins.{name}"
    for name in (
        "abs all any bool dict divmod enumerate float format getattr hasattr hex id int "
        "isinstance len list max min oct ord repr reversed round set sorted str sum tuple "
        "type vars zip range"
    ).split()
)
#: dp2ddp's own helpers that do no work other ranks need: the rank test and the scratch
#: path a write off rank 0 goes to (`open(path if ddp_is_main() else ddp_discard_path(),
#: "wb")`, file_writes.py). Read again at `--check`, the migration's own insertion is no
#: "work" (DP079 named `ddp_is_main(...)` in qiuqiangkong/panns_transfer_to_gtzan@af501a8's
#: `pickle.dump(..., open(...))`, stop 48 v3-G).
_FREE_HELPERS: Final = frozenset({"ddp_is_main", "ddp_discard_path"})
_PURE_PREFIXES: Final = (
    "time.",
    "datetime.",
    "math.",
    "os.path.",
    "os.getcwd",
    "os.getpid",
    "json.dumps",
    "numpy.",
    "platform.",
    "socket.gethostname",
    # time zones and text: what a progress or timing line is built from
    # (princeton-vl/pytorch_stacked_hourglass: `print(datetime.now(timezone('EST')))`, pytz)
    "pytz.timezone",
    "pytz.utc",
    "pytz.FixedOffset",
    "zoneinfo.ZoneInfo",
    "dateutil.tz.",
    "calendar.",
    "string.",
    "textwrap.",
    "pprint.pformat",
    "getpass.getuser",
    # text formatters of terminal output: a `print(colored("Epoch %d" % e, "yellow"))` is a
    # print like the plain one next to it (the fresh round's M3: termcolor in SCAN-style
    # training scripts); they only build strings from their arguments
    "termcolor.colored",
    "colorama.",
    "tabulate.tabulate",
    "humanize.",
    "emoji.emojize",
    "emoji.demojize",
    # metrics computed from arrays already gathered (shenweichen/DeepCTR-Torch's example:
    # `print("test LogLoss", round(log_loss(y, pred), 4))`)
    "sklearn.metrics.",
    "wandb.Image",
    "wandb.Histogram",
    "wandb.Table",
    "wandb.Video",
    "wandb.Audio",
    "torch.distributed.get_rank",
    "torch.distributed.get_world_size",
    "torch.distributed.is_initialized",
    "torch.distributed.is_available",
)
#: torch functions are pure except the collectives and those drawing random numbers
#: (a draw on rank 0 alone would desynchronise the ranks' generators).
_IMPURE_TORCH: Final = (
    "torch.distributed.",
    "torch.save",
    "torch.load",
    "torch.manual_seed",
    "torch.seed",
    "torch.rand",
    "torch.normal",
    "torch.bernoulli",
    "torch.multinomial",
    "torch.poisson",
)
#: OpenCV calls that draw from its generator (skipped on rank r, its draws drift apart) or
#: wait on a window's events.
_IMPURE_CV2: Final = frozenset(
    f"cv2.{name}"
    for name in ("randn", "randu", "randShuffle", "setRNGSeed", "theRNG", "RNG", "waitKey")
)
_PURE_METHODS: Final = frozenset(
    (
        "item tolist numpy cpu detach float double int long half bool to clone "
        "mean sum std var max min argmax argmin norm abs sqrt exp log round "
        "size dim numel nelement view reshape squeeze unsqueeze flatten t eq ne gt lt ge le "
        "format format_map join strip lstrip rstrip upper lower title replace split "
        "capitalize casefold swapcase expandtabs splitlines partition rpartition rsplit "
        "__len__ __str__ __repr__ __format__ "
        "startswith endswith zfill ljust rjust center encode decode "
        "isdigit isnumeric isdecimal isalpha isalnum isspace islower isupper istitle "
        "keys values items get copy count index "
        "state_dict parameters named_parameters buffers get_last_lr get_lr "
        "total_seconds strftime isoformat timestamp read readlines read_text read_bytes"
    ).split()
)


def has_side_effects(
    node: cst.CSTNode,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    pure_functions: frozenset[str] = frozenset(),
) -> bool:
    """True when evaluating `node` may do work other ranks rely on (see the module doc).

    pure_functions: qualified names of project functions found free of such work
    (program_hints.py), e.g. a `cf.learning_rate(lr, epoch)` printed each epoch."""
    if m.findall(node, m.NamedExpr() | m.Yield() | m.Await()):
        return True
    return working_call(node, qualified_names, pure_functions) is not None


def working_call(
    node: cst.CSTNode,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    pure_functions: frozenset[str] = frozenset(),
) -> cst.Call | None:
    """The first call in `node` not known to be free of work other ranks need: what a
    warning names when a statement stays on every rank for it (DP079)."""
    for call in m.findall(node, m.Call()):
        assert isinstance(call, cst.Call)
        names = qualified_names(call.func)
        if not (names & pure_functions or _pure_call(call, names)):
            return call
    return None


def pure_name(name: str) -> bool:
    """A qualified function name known to do no work other ranks need (`math.pow`, `len`)."""
    if name.startswith("numpy.random."):
        return False  # a draw: skipped on other ranks, their generators would drift apart
    if name in _PURE_BUILTINS or name.startswith(_PURE_PREFIXES):
        return True
    module, _, function = name.rpartition(".")
    if module.rpartition(".")[2] == GENERATED_MODULE and function in _FREE_HELPERS:
        return True  # dp2ddp's own insertion, read again at --check: a fixed point
    if name.startswith("cv2."):
        # OpenCV computes on the arrays it is given (a colour conversion, a resize before
        # `cv2.imwrite`: SR3's validation images, stop 39) and holds no collective; its
        # own generator's draws and windows' event loop are not skipped on other ranks
        return name not in _IMPURE_CV2
    return name.startswith("torch.") and not name.startswith(_IMPURE_TORCH)


def pure_method(attribute: str) -> bool:
    """A method name that only reads its value (`loss.item()`, `"{}".format(x)`)."""
    return attribute in _PURE_METHODS


#: Methods that change the container they are called on.
MUTATORS: Final = frozenset(
    "append extend insert pop popitem update setdefault add remove discard clear sort "
    "reverse".split()
)
_FRESH = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)


def fresh_containers(nodes: list[ast.AST], parameters: set[str]) -> set[str]:
    """Locals bound only to a container the function builds itself (`summary = {}`,
    `s = [...]`; every binding of the name is such an assignment): a store into one
    (`summary[k] = v`) or a mutating method on it (`s.append(x)`) changes nothing a caller
    or another rank shares (yandex-research/rtdl-revisiting-models@e3ed46c's
    `lib.make_summary` builds its summary so)."""
    values: dict[str, list[ast.expr]] = {}
    stores: dict[str, int] = {}
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                values.setdefault(target.id, []).append(node.value)
    return {
        name
        for name, bound in values.items()
        if name not in parameters
        and len(bound) == stores.get(name, 0)
        and all(isinstance(v, _FRESH) for v in bound)
    }


def open_mode(call: cst.Call) -> str | None:
    """The mode of an `open(path, mode)` call: "r" when left out, None when not a literal."""
    value = mode_argument(call)
    if value is None:
        return None if any(a.star for a in call.args) else "r"
    if isinstance(value, cst.SimpleString):
        mode = value.evaluated_value
        # tarfile's "w:gz" / "r|*": the part before the compression is open()'s mode
        return mode.split(":")[0].split("|")[0] if isinstance(mode, str) else None
    return None


def mode_argument(call: cst.Call) -> cst.BaseExpression | None:
    """The expression an `open(path, mode)` call passes as its mode (None: left out, or
    hidden in a `*args`/`**kwargs`)."""
    if any(a.star for a in call.args):
        return None
    positional = [a for a in call.args if a.keyword is None]
    value: cst.BaseExpression | None = positional[1].value if len(positional) >= 2 else None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "mode":
            value = arg.value
    return value


def _pure_call(call: cst.Call, names: set[str]) -> bool:
    if names & OPEN:
        mode = open_mode(call)  # reading a file is no work other ranks need
        return mode is not None and "r" in mode and "+" not in mode
    if any(pure_name(name) for name in names):
        return True
    func = call.func
    if isinstance(func, cst.Attribute) and pure_method(func.attr.value):
        # A method on a value (`loss.item()`, `"{}".format(x)`); `torch.xxx` was decided above.
        return not any(n.startswith("torch.") for n in names)
    return False
