"""The bench's Python peer for the document analysis (infra/bench/src/documents.rs).

Extracts from a PDF what `shared::documents::analyse` extracts, with pdfplumber (each page's
text runs with their positions and fonts, the words in reading order, the images) and pikepdf
(the document information, the fonts, the annotations, the incremental saves), then the pay
stub's figures from the text. Analyses the file once unmeasured, then N times, and prints the
times and this process's peak RSS (VmHWM) as one line of JSON.

    python documents.py <file.pdf> <runs>
"""

import json
import re
import sys
import time

import pdfplumber
import pikepdf

MONEY = re.compile(r"\$?(\d{1,3}(?:,\d{3})*\.\d{2})")
DATE = re.compile(r"\b(\d{2}/\d{2}/\d{4})\b")
LABELS = {
    "gross": re.compile(r"Gross Pay\s+\$?([\d,]+\.\d{2})\s+\$?([\d,]+\.\d{2})"),
    "net": re.compile(r"Net Pay\s+\$?([\d,]+\.\d{2})\s+\$?([\d,]+\.\d{2})"),
    "pay_date": re.compile(r"Pay Date:?\s*(\d{2}/\d{2}/\d{4})"),
    "period_start": re.compile(r"Period Beginning:?\s*(\d{2}/\d{2}/\d{4})"),
    "period_end": re.compile(r"Period Ending:?\s*(\d{2}/\d{2}/\d{4})"),
    "employer": re.compile(r"Employer:?\s*(.+)"),
    "employee": re.compile(r"Employee Name:?\s*(.+)"),
}


def structure(path):
    """The file's structure: its producer, fonts, annotations and incremental saves."""
    with open(path, "rb") as f:
        raw = f.read()
    with pikepdf.open(path) as pdf:
        info = {str(k): str(v) for k, v in pdf.docinfo.items()}
        fonts, annotations = set(), 0
        for page in pdf.pages:
            resources = page.obj.get("/Resources", {})
            for font in resources.get("/Font", {}).values():
                fonts.add(str(font.get("/BaseFont", "")))
            annotations += len(page.obj.get("/Annots", []))
        return {
            "producer": info.get("/Producer", ""),
            "creator": info.get("/Creator", ""),
            "fonts": sorted(fonts),
            "annotations": annotations,
            "saves": raw.count(b"%%EOF"),
            "pages": len(pdf.pages),
        }


def text(path):
    """Each page's text runs (text, position, font, size) and its text in reading order."""
    pages = []
    with pdfplumber.open(path) as pdf:
        for page in pdf.pages:
            words = page.extract_words(extra_attrs=["fontname", "size"])
            runs = [(w["text"], w["x0"], w["top"], w["fontname"], w["size"]) for w in words]
            pages.append(
                {
                    "runs": runs,
                    "text": page.extract_text() or "",
                    "images": len(page.images),
                }
            )
    return pages


def figures(pages):
    """The stub's fields from the text."""
    whole = "\n".join(p["text"] for p in pages)
    found = {}
    for name, pattern in LABELS.items():
        m = pattern.search(whole)
        if m:
            found[name] = m.groups() if len(m.groups()) > 1 else m.group(1).strip()
    found["amounts"] = len(MONEY.findall(whole))
    found["dates"] = len(DATE.findall(whole))
    return found


def analyse(path):
    shape = structure(path)
    pages = text(path)
    return {"structure": shape, "fields": figures(pages)}


def peak_rss_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def attempt(path):
    """The analysis, or the error that stopped it (a hostile file's outcome)."""
    try:
        return analyse(path), None
    except Exception as e:  # noqa: BLE001 - any library error is this file's outcome
        return None, f"error: {type(e).__name__}"


def main():
    path, runs = sys.argv[1], int(sys.argv[2])
    first, error = attempt(path)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        attempt(path)
        times.append((time.perf_counter() - start) * 1000.0)
    if first is None:
        first, found = {"structure": {"pages": 0}}, error
    else:
        fields = first["fields"]
        found = f"{len(fields) - 2} fields, {fields['amounts']} amounts"
    print(
        json.dumps(
            {
                "times_ms": times,
                "peak_rss_bytes": peak_rss_bytes(),
                "pages": first["structure"]["pages"],
                "found": found,
            }
        )
    )


if __name__ == "__main__":
    main()
