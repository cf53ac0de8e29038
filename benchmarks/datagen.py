"""Deterministic generated RDF data for the benchmark, shaped like real streams.

Four datasets, written as N-Triples / N-Quads text in the order a producer would emit them:

* ``sensors``        SOSA observations of an IoT stream: about 7 triples per reading, typed
                     literals (xsd:dateTime, xsd:double, xsd:integer), one blank node per result,
                     a few sensor descriptions (language-tagged labels, geo coordinates).
* ``sensors-quads``  the same readings as quads, one named graph per reading (sensor
                     descriptions stay in the default graph).
* ``knowledge-graph`` entities of a knowledge graph: labels in up to 12 languages (Latin,
                     Cyrillic, Japanese, Chinese scripts), alternative labels, descriptions,
                     links between entities (popular entities are linked more often), dates,
                     integers, owl:sameAs links to other datasets; grouped by subject as in a dump.
* ``events-quads``   an event log: one named graph per event (purchases, views, reviews, with
                     decimals, integers, dateTimes, blank-node addresses), plus provenance of each
                     graph in the default graph.
* ``skos-labels``    a multilingual SKOS thesaurus (like AGROVOC or EuroVoc): concepts with
                     preferred and alternative labels in up to 30 languages and scripts (Latin,
                     Greek, Cyrillic, Arabic, Devanagari, Thai, Korean, Japanese, Chinese),
                     definitions, scope notes, broader/narrower links; three statements in four
                     have a distinct language-tagged literal as object.

Every generator is seeded: the same scale and seed give byte-identical files.
"""

from __future__ import annotations

import random
from typing import Callable, Iterator

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
OWL = "http://www.w3.org/2002/07/owl#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
SOSA = "http://www.w3.org/ns/sosa/"
QUDT = "http://qudt.org/schema/qudt/"
UNIT = "http://qudt.org/vocab/unit/"
GEO = "http://www.w3.org/2003/01/geo/wgs84_pos#"
SCHEMA = "http://schema.org/"
PROV = "http://www.w3.org/ns/prov#"

TYPE = f"<{RDF}type>"
T_DATETIME = f"^^<{XSD}dateTime>"
T_DOUBLE = f"^^<{XSD}double>"
T_INTEGER = f"^^<{XSD}integer>"
T_DECIMAL = f"^^<{XSD}decimal>"
T_DATE = f"^^<{XSD}date>"

_ESC = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"})


def lit(lex: str, suffix: str = "") -> str:
    """An N-Triples literal: ``suffix`` is ``@lang``, ``^^<datatype>`` or empty."""
    return '"' + lex.translate(_ESC) + '"' + suffix


def _timestamp(seconds: int) -> str:
    """ISO dateTime for seconds after 2024-03-01T00:00:00Z (no datetime module: deterministic,
    fast)."""
    days, rem = divmod(seconds, 86400)
    h, rem = divmod(rem, 3600)
    m, s = divmod(rem, 60)
    month_days = (31, 30, 31, 30, 31, 31, 30, 31, 30, 31, 31, 29, 31, 30, 31, 30)  # from March
    month, year = 3, 2024
    for md in month_days:
        if days < md:
            break
        days -= md
        month += 1
        if month == 13:
            month, year = 1, year + 1
    return f"{year:04d}-{month:02d}-{days + 1:02d}T{h:02d}:{m:02d}:{s:02d}Z"


# -- sensors ---------------------------------------------------------------------------------

_PROPERTIES = [  # (name, unit, integer?, start, step)
    ("airTemperature", "DEG_C", False, 12.0, 0.3),
    ("relativeHumidity", "PERCENT", False, 60.0, 1.5),
    ("airPressure", "HectoPA", False, 1013.0, 0.4),
    ("pm25", "MicroGM-PER-M3", False, 8.0, 0.9),
    ("no2", "MicroGM-PER-M3", False, 20.0, 1.7),
    ("vehicleCount", "NUM", True, 40, 6),
    ("parkingVacancies", "NUM", True, 300, 9),
    ("noiseLevel", "DeciB", False, 55.0, 2.2),
]
_DISTRICTS = ["Centrum", "Harbour", "Nordvest", "Oldtown", "Riverside", "University", "Westend",
              "Airport", "Industrial", "Lakeside", "Hillside", "Market"]


def _sensor_readings(target: int, seed: int):
    """(description_lines, reading_lines) pairs, about ``target`` statements in all."""
    r = random.Random(seed)
    n_sensors = max(8, min(400, target // 2500))
    sensors = []
    for i in range(n_sensors):
        prop, unit, is_int, start, step = _PROPERTIES[i % len(_PROPERTIES)]
        district = _DISTRICTS[r.randrange(len(_DISTRICTS))]
        sensors.append({
            "iri": f"<http://sensors.example.org/city/sensor/{district.lower()}-{prop}-{i}>",
            "prop": f"<http://sensors.example.org/property/{prop}>",
            "foi": f"<http://sensors.example.org/city/district/{district}>",
            "unit": f"<{UNIT}{unit}>",
            "is_int": is_int, "value": start, "step": step,
            "label": f"{prop} sensor {i} in {district}",
            "lat": 56.10 + r.random() * 0.1, "long": 10.15 + r.random() * 0.1,
            "described": False,
        })
    emitted = 0
    clock = 0
    n = 0
    while emitted < target:
        clock += r.randrange(1, 20)
        sensor = sensors[r.randrange(n_sensors)]
        desc = []
        if not sensor["described"]:
            sensor["described"] = True
            si = sensor["iri"]
            desc = [
                f"{si} {TYPE} <{SOSA}Sensor> .\n",
                f"{si} <{RDFS}label> {lit(sensor['label'], '@en')} .\n",
                f"{si} <{SOSA}observes> {sensor['prop']} .\n",
                f"{si} <{GEO}lat> {lit('%.6f' % sensor['lat'], T_DOUBLE)} .\n",
                f"{si} <{GEO}long> {lit('%.6f' % sensor['long'], T_DOUBLE)} .\n",
            ]
        if sensor["is_int"]:
            sensor["value"] = max(0, sensor["value"] + r.randint(-sensor["step"], sensor["step"]))
            value = lit(str(sensor["value"]), T_INTEGER)
        else:
            sensor["value"] += (r.random() - 0.5) * 2 * sensor["step"]
            value = lit("%.2f" % sensor["value"], T_DOUBLE)
        obs = f"<http://sensors.example.org/city/observation/{n}>"
        res = f"_:r{n}"
        reading = [
            f"{obs} {TYPE} <{SOSA}Observation> .\n",
            f"{obs} <{SOSA}madeBySensor> {sensor['iri']} .\n",
            f"{obs} <{SOSA}observedProperty> {sensor['prop']} .\n",
            f"{obs} <{SOSA}resultTime> {lit(_timestamp(clock), T_DATETIME)} .\n",
            f"{obs} <{SOSA}hasResult> {res} .\n",
            f"{res} <{QUDT}numericValue> {value} .\n",
            f"{res} <{QUDT}unit> {sensor['unit']} .\n",
        ]
        if n % 10 == 0:
            reading.insert(3, f"{obs} <{SOSA}hasFeatureOfInterest> {sensor['foi']} .\n")
        n += 1
        emitted += len(desc) + len(reading)
        yield desc, reading


def sensors(target: int, seed: int) -> Iterator[str]:
    for desc, reading in _sensor_readings(target, seed):
        yield from desc
        yield from reading


def sensors_quads(target: int, seed: int) -> Iterator[str]:
    """The same readings as :func:`sensors`, each in a named graph of its own."""
    for i, (desc, reading) in enumerate(_sensor_readings(target, seed)):
        yield from desc
        g = f" <http://sensors.example.org/city/graph/{i}> .\n"
        for line in reading:
            yield line[:-3] + g


# -- knowledge graph -------------------------------------------------------------------------

# Parallel syllables: a name is a list of indices, spelled in each script.
_LATIN = ["ka", "lo", "mi", "ra", "ne", "to", "su", "vi", "da", "ri", "el", "an", "or", "ba",
          "ze", "mu", "ti", "go", "fe", "sa", "ul", "no", "pe", "dri"]
_CYRILLIC = ["ка", "ло", "ми", "ра", "не", "то", "су", "ви", "да", "ри", "эл", "ан", "ор", "ба",
             "зе", "му", "ти", "го", "фе", "са", "ул", "но", "пе", "дри"]
_KATAKANA = ["カ", "ロ", "ミ", "ラ", "ネ", "ト", "ス", "ヴィ", "ダ", "リ", "エル", "アン", "オル", "バ",
             "ゼ", "ム", "ティ", "ゴ", "フェ", "サ", "ウル", "ノ", "ペ", "ドリ"]
_HANZI = ["卡", "洛", "米", "拉", "内", "托", "苏", "维", "达", "里", "埃", "安", "奥", "巴",
          "泽", "穆", "蒂", "戈", "费", "萨", "乌", "诺", "佩", "德"]
_LANGS = [  # (tag, script, suffix rule)
    ("en", "latin", ""), ("de", "latin", "en"), ("fr", "latin", "e"), ("es", "latin", "a"),
    ("it", "latin", "o"), ("nl", "latin", ""), ("pl", "latin", "ia"), ("pt", "latin", "a"),
    ("sv", "latin", ""), ("ru", "cyrillic", "ия"), ("ja", "katakana", ""), ("zh", "hanzi", ""),
]
_CLASSES = ["City", "Person", "Organization", "River", "Mountain", "Book", "Film", "Company",
            "University", "Building", "Species", "Painting", "Album", "Country", "Lake",
            "Festival", "Ship", "Airport", "Island", "Protein"]
_WORDS = ("a the of in and with located known for its large small old new northern southern "
          "historic river city town region museum founded century famous annual work group "
          "member species family notable public private international national local central "
          "area population building collection series part former current major").split()


def _spell(name, script):
    """A capitalised word of the syllables ``name`` in ``script`` (a key of _SCRIPTS)."""
    s = "".join(_SCRIPTS[script][i] for i in name)
    return s[:1].upper() + s[1:]


def knowledge_graph(target: int, seed: int) -> Iterator[str]:
    r = random.Random(seed)
    ent = "http://kg.example.org/entity/Q"
    ont = "http://kg.example.org/ontology/"
    prop = "http://kg.example.org/prop/P"
    n_props = 120
    emitted = 0
    i = 0
    while emitted < target:
        s = f"<{ent}{i}>"
        name = [r.randrange(len(_LATIN)) for _ in range(r.randint(2, 4))]
        cls = _CLASSES[min(int(r.expovariate(0.25)), len(_CLASSES) - 1)]
        lines = [f"{s} {TYPE} <{ont}{cls}> .\n"]
        if r.random() < 0.3:
            lines.append(f"{s} {TYPE} <{SCHEMA}Thing> .\n")
        latin = _spell(name, "latin")
        for tag, script, suffix in _LANGS[:r.randint(2, len(_LANGS))]:
            label = _spell(name, script) + suffix
            if script == "latin" and r.random() < 0.3:
                label += " " + r.choice(["(" + cls.lower() + ")", "I", "II", "Nord", "Sud"])
            lines.append(f"{s} <{RDFS}label> {lit(label, '@' + tag)} .\n")
        for _ in range(r.randint(0, 2)):
            alt = latin + " " + _spell([r.randrange(len(_LATIN))], "latin")
            lines.append(f"{s} <{SKOS}altLabel> {lit(alt, '@en')} .\n")
        words = [r.choice(_WORDS) for _ in range(r.randint(8, 25))]
        desc = f"{latin} is a {cls.lower()} " + " ".join(words) + "."
        lines.append(f"{s} <{SCHEMA}description> {lit(desc, '@en')} .\n")
        if r.random() < 0.4:
            lines.append(f"{s} <{SCHEMA}description> "
                         f"{lit(_spell(name, 'latin') + ' ist ein ' + cls + '.', '@de')} .\n")
        if i > 10:
            for _ in range(r.randint(1, 6)):
                # popular targets: a skewed choice among the entities so far
                target_id = int(i * (r.random() ** 3))
                p = int(r.expovariate(0.08)) % n_props
                lines.append(f"{s} <{prop}{p}> <{ent}{target_id}> .\n")
        if r.random() < 0.5:
            date = "%04d-%02d-%02d" % (r.randint(1000, 2020), r.randint(1, 12), r.randint(1, 28))
            lines.append(f"{s} <{ont}inception> {lit(date, T_DATE)} .\n")
        if r.random() < 0.3:
            lines.append(f"{s} <{ont}population> {lit(str(r.randint(50, 9_000_000)), T_INTEGER)} .\n")
        if r.random() < 0.6:
            lines.append(f"{s} <{OWL}sameAs> <http://dbpedia.org/resource/{latin}_{i}> .\n")
        if r.random() < 0.3:
            lines.append(f"{s} <{SCHEMA}image> "
                         f"<https://commons.example.org/wiki/File:{latin}_{r.randrange(10**6)}.jpg> .\n")
        emitted += len(lines)
        i += 1
        yield from lines


# -- events (quads) --------------------------------------------------------------------------

def events_quads(target: int, seed: int) -> Iterator[str]:
    r = random.Random(seed)
    ev = "http://shop.example.org/event/"
    voc = "http://shop.example.org/vocab#"
    n_users = max(50, target // 40)
    n_products = max(30, target // 200)
    channels = ["web", "app-ios", "app-android", "store", "phone"]
    cities = ["Aarhus", "Berlin", "Lyon", "Porto", "Kraków", "Utrecht", "Bologna", "Göteborg"]
    emitted = 0
    clock = 0
    i = 0
    while emitted < target:
        clock += r.randrange(1, 30)
        g = f" <http://shop.example.org/graph/{i}> .\n"
        e = f"<{ev}{i}>"
        user = f"<http://shop.example.org/user/{int(n_users * r.random() ** 2)}>"
        product = f"<http://shop.example.org/product/{int(n_products * r.random() ** 2)}>"
        kind = r.random()
        lines = [f"{e} <{voc}actor> {user}", f"{e} <{voc}time> {lit(_timestamp(clock), T_DATETIME)}",
                 f"{e} <{voc}channel> {lit(r.choice(channels))}"]
        if kind < 0.5:
            lines.insert(0, f"{e} {TYPE} <{voc}View>")
            lines.append(f"{e} <{voc}item> {product}")
            lines.append(f"{e} <{voc}durationMs> {lit(str(r.randrange(200, 90000)), T_INTEGER)}")
        elif kind < 0.85:
            lines.insert(0, f"{e} {TYPE} <{voc}Purchase>")
            lines.append(f"{e} <{voc}item> {product}")
            lines.append(f"{e} <{voc}quantity> {lit(str(r.randint(1, 5)), T_INTEGER)}")
            amount = "%.2f" % (r.randrange(100, 50000) / 100)
            lines.append(f"{e} <{voc}amount> {lit(amount, T_DECIMAL)}")
            lines.append(f"{e} <{voc}currency> {lit('EUR')}")
            addr = f"_:a{i}"
            lines.append(f"{e} <{voc}shippingAddress> {addr}")
            lines.append(f"{addr} <{SCHEMA}addressLocality> {lit(r.choice(cities))}")
            lines.append(f"{addr} <{SCHEMA}postalCode> {lit(str(r.randrange(1000, 99999)))}")
        else:
            lines.insert(0, f"{e} {TYPE} <{voc}Review>")
            lines.append(f"{e} <{voc}item> {product}")
            lines.append(f"{e} <{voc}rating> {lit(str(r.randint(1, 5)), T_INTEGER)}")
            text = " ".join(r.choice(_WORDS) for _ in range(r.randint(5, 30)))
            lines.append(f"{e} <{voc}text> {lit(text, '@' + r.choice(['en', 'de', 'fr', 'pl']))}")
        out = [line + g for line in lines]
        gi = f"<http://shop.example.org/graph/{i}>"
        out.append(f"{gi} <{PROV}generatedAtTime> {lit(_timestamp(clock + 1), T_DATETIME)} .\n")
        out.append(f"{gi} <{PROV}wasAttributedTo> <http://shop.example.org/source/{r.choice(channels)}> .\n")
        emitted += len(out)
        i += 1
        yield from out


# -- multilingual SKOS thesaurus -------------------------------------------------------------

# Syllables of further scripts (parallel to _LATIN: one name spelled in every script).
_GREEK = ["κα", "λο", "μι", "ρα", "νε", "το", "συ", "βι", "δα", "ρι", "ελ", "αν", "ορ", "μπα",
          "ζε", "μυ", "τι", "γκο", "φε", "σα", "ουλ", "νο", "πε", "ντρι"]
_ARABIC = ["كا", "لو", "مي", "را", "ني", "تو", "سو", "في", "دا", "ري", "ال", "ان", "ور", "با",
           "زي", "مو", "تي", "غو", "في", "سا", "ول", "نو", "بي", "دري"]
_DEVANAGARI = ["का", "लो", "मि", "रा", "ने", "तो", "सु", "वि", "दा", "रि", "एल", "अन", "ओर", "बा",
               "ज़े", "मु", "ति", "गो", "फ़े", "सा", "उल", "नो", "पे", "ड्रि"]
_THAI = ["คา", "โล", "มิ", "รา", "เน", "โต", "ซู", "วิ", "ดา", "ริ", "เอล", "อัน", "ออร์", "บา",
         "เซ", "มู", "ติ", "โก", "เฟ", "ซา", "อุล", "โน", "เป", "ดริ"]
_HANGUL = ["카", "로", "미", "라", "네", "토", "수", "비", "다", "리", "엘", "안", "오르", "바",
           "제", "무", "티", "고", "페", "사", "울", "노", "페", "드리"]
_SCRIPTS = {"latin": _LATIN, "cyrillic": _CYRILLIC, "katakana": _KATAKANA, "hanzi": _HANZI,
            "greek": _GREEK, "arabic": _ARABIC, "devanagari": _DEVANAGARI, "thai": _THAI,
            "hangul": _HANGUL}
_SKOS_LANGS = [  # (tag, script, word that follows a label in that language)
    ("en", "latin", "crops"), ("fr", "latin", "cultures"), ("es", "latin", "cultivos"),
    ("de", "latin", "Kulturen"), ("it", "latin", "colture"), ("pt", "latin", "culturas"),
    ("nl", "latin", "gewassen"), ("pl", "latin", "uprawy"), ("cs", "latin", "plodiny"),
    ("sk", "latin", "plodiny"), ("hu", "latin", "növények"), ("ro", "latin", "culturi"),
    ("tr", "latin", "ürünler"), ("sv", "latin", "grödor"), ("fi", "latin", "viljelykasvit"),
    ("da", "latin", "afgrøder"), ("lt", "latin", "pasėliai"), ("vi", "latin", "cây trồng"),
    ("ru", "cyrillic", "культуры"), ("uk", "cyrillic", "культури"), ("bg", "cyrillic", "култури"),
    ("sr", "cyrillic", "усеви"), ("el", "greek", "καλλιέργειες"), ("ar", "arabic", "محاصيل"),
    ("fa", "arabic", "محصولات"), ("hi", "devanagari", "फसलें"), ("th", "thai", "พืชผล"),
    ("ko", "hangul", "작물"), ("ja", "katakana", "作物"), ("zh", "hanzi", "作物"),
]


def skos_labels(target: int, seed: int) -> Iterator[str]:
    r = random.Random(seed)
    base = "http://thesaurus.example.org/c_"
    scheme = "<http://thesaurus.example.org/scheme>"
    dct = "http://purl.org/dc/terms/"
    emitted = 0
    i = 0
    while emitted < target:
        s = f"<{base}{i}>"
        name = [r.randrange(len(_LATIN)) for _ in range(r.randint(2, 5))]
        lines = [f"{s} {TYPE} <{SKOS}Concept> .\n", f"{s} <{SKOS}inScheme> {scheme} .\n"]
        langs = _SKOS_LANGS[:r.randint(8, len(_SKOS_LANGS))]
        for tag, script, word in langs:
            label = _spell(name, script) + " " + word
            lines.append(f"{s} <{SKOS}prefLabel> {lit(label, '@' + tag)} .\n")
        for tag, script, word in langs:
            if r.random() < 0.5:
                extra = [r.randrange(len(_LATIN))]
                alt = _spell(name + extra, script) + " " + word
                lines.append(f"{s} <{SKOS}altLabel> {lit(alt, '@' + tag)} .\n")
        if r.random() < 0.3:
            hidden = _spell(name[::-1], "latin")
            lines.append(f"{s} <{SKOS}hiddenLabel> {lit(hidden, '@en')} .\n")
        if r.random() < 0.5:
            words = [r.choice(_WORDS) for _ in range(r.randint(6, 20))]
            text = _spell(name, "latin") + " " + " ".join(words) + "."
            lines.append(f"{s} <{SKOS}definition> {lit(text, '@en')} .\n")
        if r.random() < 0.2:
            words = [r.choice(_WORDS) for _ in range(r.randint(4, 12))]
            lines.append(f"{s} <{SKOS}scopeNote> {lit(' '.join(words), '@en')} .\n")
        if i > 0:
            parent = r.randrange(max(1, i // 8) if i > 8 else i)
            lines.append(f"{s} <{SKOS}broader> <{base}{parent}> .\n")
        modified = "20%02d-%02d-%02dT12:00:00Z" % (r.randint(10, 24), r.randint(1, 12),
                                                  r.randint(1, 28))
        lines.append(f"{s} <{dct}modified> {lit(modified, T_DATETIME)} .\n")
        emitted += len(lines)
        i += 1
        yield from lines


#: name -> (kind, generator(target_statements, seed) -> lines)
GENERATORS: dict[str, tuple[str, Callable[[int, int], Iterator[str]]]] = {
    "sensors": ("triples", sensors),
    "sensors-quads": ("quads", sensors_quads),
    "knowledge-graph": ("triples", knowledge_graph),
    "events-quads": ("quads", events_quads),
    "skos-labels": ("triples", skos_labels),
}


def write(name: str, target: int, seed: int, path: str) -> int:
    """Write dataset ``name`` with about ``target`` statements to ``path``; returns the count."""
    _, gen = GENERATORS[name]
    n = 0
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        buf = []
        for line in gen(target, seed):
            buf.append(line)
            if len(buf) >= 4096:
                f.write("".join(buf))
                n += len(buf)
                buf.clear()
        f.write("".join(buf))
        n += len(buf)
    return n
