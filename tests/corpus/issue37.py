"""A third set of person-made documents (issue 37): prices per token count as procurement writes them,
German workbooks with decimal commas in columns that hold no throughput, file names in source notes,
and the forms the detector missed: abbreviated headline tiles ('~420k' over a caption, or under a
title that names the unit), prose whose unit its subject or its heading states, images per second,
and uncalculated per-GPU formulas. Each document was flagged wrongly, or missed, before issue 37."""
from __future__ import annotations

from pathlib import Path

from . import Doc, Expect, figure
from .documents import csv_file, md, pdf, pptx, xlsx


def _placeholder_deck(path: Path, slides) -> Path:
    """A deck made from PowerPoint's 'Title and Content' layout, the text typed into its placeholders:
    ``slides`` is a list of (title, body) pairs."""
    from pptx import Presentation

    prs = Presentation()
    for title, body in slides:
        slide = prs.slides.add_slide(prs.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = body
    prs.save(path)
    return path


def derived_cost(d: Path) -> list[Doc]:
    return [
        # a provider's price beside our own cost: the price is not a figure, tokens per dollar is
        Doc(md(d / "price-vs-own.md", "# Buy or build\n\nThe provider's list price is $0.20 / 1M tokens. On our own "
               "B200 node, at $3.29/hr, we work out to 14.1M tokens per dollar.\n"), "derived-cost",
            [figure("14.1M tokens per dollar")]),
    ]


def units(d: Path) -> list[Doc]:
    return [
        Doc(pdf(d / "resnet-images.pdf", [("p", "The H200 node classified 118,500 images per second on ResNet-50; "
                                                "the H100 node managed 84,200.")]), "units",
            [figure("118,500 images per second"), figure("84,200")]),
    ]


def unit_once(d: Path) -> list[Doc]:
    return [
        Doc(md(d / "heading-prose.md", "## Offline results (samples/s)\n\nH200 leads with 118.5, the H100 trails at "
               "84.2.\n"), "unit-once", [figure("118.5"), figure("84.2")]),
        Doc(pptx(d / "subject-prose.pptx", [[("text", "ResNet-50", 0.5, 0.3, 9, 0.8),
                                             ("text", "On ResNet-50, Offline throughput reached 41,200 on the B200 node, "
                                                      "against 27,900 on H100.", 0.5, 1.5, 9, 1.5)]]), "unit-once",
            [figure("41,200"), figure("27,900")]),
        Doc(pdf(d / "samples-each-second.pdf", [("p", "In the Server scenario the H200 system answered 96.4 samples "
                                                      "each second, the H100 system 61.0.")]), "unit-once",
            [figure("96.4 samples each second"), figure("61.0")]),
    ]


def reader_sees(d: Path) -> list[Doc]:
    return [
        # tiles whose caption holds digits of its own ('Llama 2 70B'), and tiles under a title that names
        # the unit, their captions naming only the scenario (and one tile of another quantity)
        Doc(pptx(d / "kpi-abbreviated.pptx", [
            [("text", "Cluster results", 0.5, 0.3, 9, 0.8),
             ("text", "~420k", 0.5, 1.5, 3, 1), ("text", "tokens/s on Llama 2 70B, Offline", 0.5, 2.5, 3, 0.5),
             ("text", "1.2M", 4.5, 1.5, 3, 1), ("text", "TPS across 72 GPUs", 4.5, 2.5, 3, 0.5)],
            [("text", "Cluster throughput (tokens/s)", 0.5, 0.3, 9, 0.8),
             ("text", "≈ 0.4M", 0.5, 3.0, 2.5, 1), ("text", "Server", 0.5, 4.0, 2.5, 0.5),
             ("text", "420 K", 3.5, 3.0, 2.5, 1), ("text", "Interactive", 3.5, 4.0, 2.5, 0.5),
             ("text", "141", 6.5, 3.0, 2.5, 1), ("text", "GB HBM3e per GPU", 6.5, 4.0, 2.5, 0.5)],
        ]), "reader-sees", [figure("420k"), figure("1.2M"), figure("0.4M"), figure("420 K")]),
        # per-GPU figures worked out by formulas, saved by openpyxl without their calculated values
        Doc(xlsx(d / "per-gpu-formulas.xlsx", {
            "Results": [["System", "GPUs", "Tokens/s"], ["B200 x8", 8, 102909.4], ["H100 x8", 8, 52070.1]],
            "Per GPU": [["System", "Tokens/s/GPU"], ["=Results!A2", "=Results!C2/Results!B2"],
                        ["=Results!A3", "=Results!C3/Results!B3"]]}), "reader-sees",
            [figure("102909.4"), figure("52070.1"), Expect("EG023", "=Results!C2/Results!B2"),
             Expect("EG023", "=Results!C3/Results!B3")]),
    ]


def clean(d: Path) -> list[Doc]:
    return [
        Doc(_placeholder_deck(d / "api-pricing.pptx", [
            ("API pricing (list, per provider)", "GPT-4.1 mini: $0.40 / 1M input tokens, $1.60 / 1M output tokens\n"
                                                 "Llama 3.3 70B on Bedrock: 0.72 USD per 1M tokens\n"
                                                 "Mistral Large: 2.10 USD per 1M tokens"),
            ("Our contract", "Vendor A quoted $0.20 / 1M tokens, billed monthly; batch jobs at half price."),
        ]), "clean"),
        Doc(md(d / "procurement-prices.md", "## Token prices we were quoted\n\n| Provider | Model | Price |\n"
               "|---|---|---|\n| Vendor A | Llama 3.1 70B | $0.20 / 1M tokens |\n"
               "| Vendor B | Llama 3.1 70B | 2.10 USD per 1M tokens |\n\nVendor A's list price is $0.20 / 1M tokens; "
               "batch jobs are priced at $0.10 per million tokens.\n"), "clean"),
        Doc(xlsx(d / "price-list.xlsx", {"Prices": [["Provider", "Model", "Input price ($/1M tokens)",
                                                     "Output price ($/1M tokens)", "Context (tokens)"],
                                                    ["Vendor A", "Llama 3.1 70B", 0.20, 0.60, 128000],
                                                    ["Vendor B", "Llama 3.1 70B", 0.35, 2.10, 131072]]}), "clean"),
        Doc(csv_file(d / "price_sheet.csv", [["provider", "model", "price_per_1m_tokens_usd", "input_usd_per_1m_tokens"],
                                             ["vendor-a", "llama-3.1-70b", "0.20", "0.10"],
                                             ["vendor-b", "llama-3.1-70b", "2.10", "0.90"]]), "clean"),
        Doc(pdf(d / "quote.pdf", [("h", "Quote Q-2026-114"),
                                  ("p", "Managed inference is priced at 2.10 USD per 1M tokens."),
                                  ("p", "Batch jobs are charged $0.20 / 1M tokens.")]), "clean"),
        # a German workbook: decimal commas in columns of memory and network throughput, latency, memory
        Doc(xlsx(d / "messwerte-de.xlsx", {"Messwerte": [["System", "Speicherdurchsatz", "Netzwerkdurchsatz",
                                                          "Latenz p99 (ms)", "Speicher (GB)"],
                                                         ["B200 x8", "1.234,5", "93,5", "93,5", "1.440"],
                                                         ["H200 x8", "987,6", "88,1", "88,1", "1.128"]]}), "clean"),
        # a German CSV: a volume per hour and per day (traffic, not a rate per second), a latency
        Doc(csv_file(d / "kennzahlen-de.csv", [["System", "Durchsatz je Stunde", "Anfragen pro Tag", "Latenz (ms)"],
                                               ["B200 x8", "1.234,5", "93.500,5", "93,5"]], delimiter=";"), "clean"),
        # a source note names the run's result file: the numbers in a file name are no figures
        Doc(md(d / "run-sources.md", "# Load test sources\n\nSource: results/poisson4_isl550_osl250/"
               "openai-4.0qps-mock-llm-20261201-094331.json (vLLM bench serve), and "
               "https://example.com/runs/4.0qps/094331 for the raw log.\n"), "clean"),
    ]


BUILDERS = (derived_cost, units, unit_once, reader_sees, clean)
