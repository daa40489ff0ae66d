#!/usr/bin/python3
r"""Independent generator of photographed identity-document test images.

Written from ICAO Doc 9303 and from how real documents and phone photos
look, without any code of the verifyd engine or its own generators. It
draws passports (TD3 data pages, optionally the open booklet), identity
cards and residence permits (TD1, some TD2) and driving licences, then
"photographs" every side with a pinhole-camera model (homography or bent
surface), lighting, optics, sensor noise, phone processing and JPEG.

    /usr/bin/python3 scripts/indepdocs/gen.py --out DIR --seed S --n N \
        --today 2026-06-01 [--portraits DIR] [--cases a,b] [--max-mp 12]
    /usr/bin/python3 scripts/indepdocs/gen.py --selftest

Only the standard library, PIL (python3-pil) and numpy (python3-numpy).
See README.md next to this file for the manifest format.
"""

import argparse
import colorsys
import datetime as dt
import json
import math
import os
import random
import re
import sys
import time
import unicodedata

import numpy as np
from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont, ImageOps

BICUBIC = Image.Resampling.BICUBIC
LANCZOS = Image.Resampling.LANCZOS

# ---------------------------------------------------------------------------
# Fonts
# ---------------------------------------------------------------------------

FONT_ROOTS = [
    '/usr/share/fonts/opentype/ocr-b',
    '/usr/share/fonts/truetype/dejavu',
    '/usr/share/fonts/truetype/liberation',
    '/usr/share/fonts/truetype/freefont',
]


def find_font(name):
    for root in FONT_ROOTS:
        p = os.path.join(root, name)
        if os.path.exists(p):
            return p
    return None


OCRB = find_font('OCRB.otf')

# Fonts for printed values (many issuers use a plain sans, some OCR-B,
# some a condensed face or a serif).
VALUE_FONT_NAMES = [
    'DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSansCondensed.ttf',
    'DejaVuSansCondensed-Bold.ttf', 'LiberationSans-Regular.ttf',
    'LiberationSans-Bold.ttf', 'LiberationSansNarrow-Regular.ttf',
    'LiberationSansNarrow-Bold.ttf', 'FreeSans.ttf', 'FreeSansBold.ttf',
    'LiberationSerif-Regular.ttf', 'LiberationSerif-Bold.ttf',
    'DejaVuSerif.ttf', 'FreeSerif.ttf', 'LiberationMono-Regular.ttf',
    'DejaVuSansMono.ttf', 'OCRB.otf', 'OCRB.otf',
]
LABEL_FONT_NAMES = [
    'DejaVuSans.ttf', 'DejaVuSansCondensed.ttf', 'LiberationSans-Regular.ttf',
    'LiberationSansNarrow-Regular.ttf', 'FreeSans.ttf', 'DejaVuSans-Oblique.ttf',
    'LiberationSans-Italic.ttf', 'FreeSansOblique.ttf', 'DejaVuSerif-Italic.ttf',
    'LiberationSerif-Italic.ttf',
]
TITLE_FONT_NAMES = [
    'DejaVuSans-Bold.ttf', 'LiberationSans-Bold.ttf', 'FreeSansBold.ttf',
    'LiberationSerif-Bold.ttf', 'DejaVuSerif-Bold.ttf', 'FreeSerifBold.ttf',
    'DejaVuSansCondensed-Bold.ttf',
]


def font_list(names):
    out = []
    for n in names:
        p = find_font(n)
        if p:
            out.append(p)
    return out


_FONT_CACHE = {}
_CAP_CACHE = {}


def get_font(path, size):
    size = max(4, int(round(size)))
    key = (path, size)
    f = _FONT_CACHE.get(key)
    if f is None:
        f = ImageFont.truetype(path, size)
        _FONT_CACHE[key] = f
    return f


_GLYPH_CACHE = {}


def _glyph_sig(f, ch):
    m = f.getmask(ch)
    return m.size, Image.Image()._new(m).tobytes()


def has_glyphs(path, text):
    """True if the font has a real glyph for every character of text."""
    f = get_font(path, 40)
    miss = _GLYPH_CACHE.get((path, None))
    if miss is None:
        miss = _GLYPH_CACHE[(path, None)] = _glyph_sig(f, '\uE000')
    for ch in set(text):
        if ch.isspace():
            continue
        k = (path, ch)
        if k not in _GLYPH_CACHE:
            _GLYPH_CACHE[k] = _glyph_sig(f, ch) != miss
        if not _GLYPH_CACHE[k]:
            return False
    return True


def fallback_font(path, text):
    """Same style from a font family that covers text (DejaVu covers Latin
    Extended and Cyrillic)."""
    if has_glyphs(path, text):
        return path
    name = os.path.basename(path)
    mono = 'Mono' in name or 'OCRB' in name
    bold = 'Bold' in name
    italic = 'Italic' in name or 'Oblique' in name
    cand = 'DejaVuSansMono' if mono else ('DejaVuSerif' if 'Serif' in name else 'DejaVuSans')
    style = ('Bold' if bold else '') + (('Italic' if cand == 'DejaVuSerif' else 'Oblique') if italic else '')
    styled = cand + ('-' + style if style else '')
    for c in (styled + '.ttf', cand + '.ttf', 'DejaVuSans.ttf'):
        p = find_font(c)
        if p and has_glyphs(p, text):
            return p
    return path


def cap_ratio(path):
    """Cap height of 'H' as a fraction of the font size."""
    r = _CAP_CACHE.get(path)
    if r is None:
        b = get_font(path, 200).getbbox('H', anchor='ls')
        r = (b[3] - b[1]) / 200.0
        _CAP_CACHE[path] = r
    return r


# ---------------------------------------------------------------------------
# Country data (names, places, languages, formats)
# ---------------------------------------------------------------------------

def _s(x):
    return [w.strip() for w in x.split(',') if w.strip()]


NAMES = {
    'gbr': (_s('SMITH,JONES,TAYLOR,BROWN,WILLIAMS,WILSON,JOHNSON,DAVIES,ROBINSON,WRIGHT,THOMPSON,EVANS,WALKER,WHITE,ROBERTS,O\'BRIEN,MACDONALD,HUGHES-PARKER,FITZGERALD,ASHWORTH'),
            _s('JAMES,OLIVER,HARRY,GEORGE,THOMAS,WILLIAM,JACK,DANIEL,SAMUEL,EDWARD ALEXANDER,RHYS'),
            _s('OLIVIA,AMELIA,EMILY,SOPHIE,CHARLOTTE,JESSICA,GRACE,HANNAH,ELEANOR ROSE,SIAN'),
            _s('LONDON,MANCHESTER,BIRMINGHAM,LEEDS,GLASGOW,BRISTOL,CARDIFF,EDINBURGH,LIVERPOOL,NORWICH')),
    'deu': (_s('MÜLLER,SCHMIDT,SCHNEIDER,FISCHER,WEBER,MEYER,WAGNER,BECKER,SCHULZ,HOFFMANN,SCHÄFER,KOCH,BAUER,RICHTER,KLEIN,WOLF,SCHRÖDER,NEUMANN,ZIMMERMANN,KRÜGER,HARTMANN,LANGE,KÖHLER,VON DER HEYDT'),
            _s('LUKAS,JONAS,FELIX,MAXIMILIAN,PAUL,LEON,MORITZ,JÖRG,JÜRGEN,KARL-HEINZ,STEFAN,TOBIAS'),
            _s('ANNA,LENA,MARIE,SOPHIA,HANNAH,LEONIE,JULIA,KATHARINA,SABINE,BÄRBEL,ANNE-KATRIN,GRETA'),
            _s('BERLIN,HAMBURG,MÜNCHEN,KÖLN,FRANKFURT AM MAIN,STUTTGART,DÜSSELDORF,LEIPZIG,DORTMUND,BREMEN,DRESDEN,NÜRNBERG')),
    'fra': (_s('MARTIN,BERNARD,DUBOIS,THOMAS,ROBERT,RICHARD,PETIT,DURAND,LEROY,MOREAU,SIMON,LAURENT,LEFÈVRE,MICHEL,GARCIA,BERTRAND,ROUX,FOURNIER,GIRARD,BONNET,FRANÇOIS,MERCIER'),
            _s('JEAN,PIERRE,LOUIS,NICOLAS,JULIEN,ANTOINE,MATHIEU,FRANÇOIS,JÉRÔME,THÉO,HUGO,JEAN-BAPTISTE'),
            _s('MARIE,CAMILLE,LÉA,MANON,CHLOÉ,INÈS,JULIE,CLAIRE,SOPHIE,HÉLÈNE,ÉLODIE,ANNE-SOPHIE'),
            _s('PARIS,LYON,MARSEILLE,TOULOUSE,NICE,NANTES,STRASBOURG,MONTPELLIER,BORDEAUX,LILLE,RENNES,REIMS')),
    'esp': (_s('GARCÍA,RODRÍGUEZ,GONZÁLEZ,FERNÁNDEZ,LÓPEZ,MARTÍNEZ,SÁNCHEZ,PÉREZ,GÓMEZ,MARTÍN,JIMÉNEZ,RUIZ,HERNÁNDEZ,DÍAZ,MORENO,MUÑOZ,ÁLVAREZ,ROMERO,NÚÑEZ,IBÁÑEZ'),
            _s('JOSÉ,ANTONIO,MANUEL,FRANCISCO,DAVID,JUAN,JAVIER,DANIEL,CARLOS,JESÚS,ALEJANDRO,JOSÉ LUIS'),
            _s('MARÍA,CARMEN,ANA,LAURA,ISABEL,LUCÍA,MARTA,CRISTINA,PAULA,MARÍA JOSÉ,ROCÍO'),
            _s('MADRID,BARCELONA,VALENCIA,SEVILLA,ZARAGOZA,MÁLAGA,MURCIA,BILBAO,ALICANTE,CÓRDOBA,VALLADOLID')),
    'ita': (_s('ROSSI,RUSSO,FERRARI,ESPOSITO,BIANCHI,ROMANO,COLOMBO,RICCI,MARINO,GRECO,BRUNO,GALLO,CONTI,DE LUCA,MANCINI,COSTA,GIORDANO,RIZZO,LOMBARDI,MORETTI,D\'ANGELO'),
            _s('FRANCESCO,ALESSANDRO,ANDREA,LORENZO,MATTEO,MARCO,GIUSEPPE,LUCA,NICCOLÒ,GIOVANNI'),
            _s('GIULIA,SOFIA,CHIARA,FRANCESCA,ALESSIA,MARTINA,ELENA,VALENTINA,SARA,ANNA MARIA'),
            _s('ROMA,MILANO,NAPOLI,TORINO,PALERMO,GENOVA,BOLOGNA,FIRENZE,BARI,CATANIA,VENEZIA,VERONA')),
    'nld': (_s('DE JONG,JANSEN,DE VRIES,VAN DEN BERG,VAN DIJK,BAKKER,JANSSEN,VISSER,SMIT,MEIJER,DE BOER,MULDER,DE GROOT,BOS,VOS,PETERS,HENDRIKS,VAN LEEUWEN,DEKKER'),
            _s('DAAN,SEM,LUCAS,MILAN,LEVI,BRAM,THIJS,JEROEN,PIETER,WILLEM JAN'),
            _s('EMMA,JULIA,SOPHIE,TESS,ZOË,FLEUR,ANOUK,SANNE,LIEKE,FEMKE'),
            _s('AMSTERDAM,ROTTERDAM,\'S-GRAVENHAGE,UTRECHT,EINDHOVEN,GRONINGEN,TILBURG,ALMERE,BREDA,NIJMEGEN')),
    'bel': (_s('PEETERS,JANSSENS,MAES,JACOBS,MERTENS,WILLEMS,CLAES,GOOSSENS,WOUTERS,DE SMET,DUBOIS,LAMBERT,DUPONT,LEJEUNE,VAN DAMME,VERMEULEN'),
            _s('NOAH,ARTHUR,LOUIS,LIAM,JULES,ADAM,LUCAS,THOMAS,PIETER,LUC'),
            _s('EMMA,OLIVIA,LOUISE,MILA,ELENA,MARIE,LAURA,SARAH,ELISE,NATHALIE'),
            _s('BRUXELLES,ANTWERPEN,GENT,CHARLEROI,LIÈGE,BRUGGE,NAMUR,LEUVEN,MONS,AALST')),
    'pol': (_s('NOWAK,KOWALSKI,WIŚNIEWSKI,WÓJCIK,KOWALCZYK,KAMIŃSKI,LEWANDOWSKI,ZIELIŃSKI,SZYMAŃSKI,WOŹNIAK,DĄBROWSKI,KOZŁOWSKI,JANKOWSKI,MAZUR,KWIATKOWSKI,KRAWCZYK,PIOTROWSKI,GRABOWSKI'),
            _s('JAN,PIOTR,KRZYSZTOF,ANDRZEJ,TOMASZ,PAWEŁ,MICHAŁ,ŁUKASZ,MAREK,JAKUB'),
            _s('ANNA,MARIA,KATARZYNA,MAŁGORZATA,AGNIESZKA,BARBARA,EWA,MAGDALENA,JOANNA,ZOFIA'),
            _s('WARSZAWA,KRAKÓW,ŁÓDŹ,WROCŁAW,POZNAŃ,GDAŃSK,SZCZECIN,BYDGOSZCZ,LUBLIN,KATOWICE')),
    'swe': (_s('ANDERSSON,JOHANSSON,KARLSSON,NILSSON,ERIKSSON,LARSSON,OLSSON,PERSSON,SVENSSON,GUSTAFSSON,PETTERSSON,JÖNSSON,LINDBERG,LINDSTRÖM,ÅBERG,SJÖBERG'),
            _s('ERIK,LARS,KARL,ANDERS,JOHAN,PER,NILS,MIKAEL,BJÖRN,OSKAR'),
            _s('ANNA,EVA,MARIA,KARIN,SARA,ELSA,MAJA,INGRID,ÅSA,SOFIA'),
            _s('STOCKHOLM,GÖTEBORG,MALMÖ,UPPSALA,VÄSTERÅS,ÖREBRO,LINKÖPING,HELSINGBORG,JÖNKÖPING,UMEÅ')),
    'prt': (_s('SILVA,SANTOS,FERREIRA,PEREIRA,OLIVEIRA,COSTA,RODRIGUES,MARTINS,JESUS,SOUSA,FERNANDES,GONÇALVES,GOMES,LOPES,MARQUES,ALVES,ALMEIDA,RIBEIRO,PINTO'),
            _s('JOÃO,JOSÉ,ANTÓNIO,FRANCISCO,RODRIGO,MARTIM,TIAGO,PEDRO,RUI,NUNO'),
            _s('MARIA,ANA,BEATRIZ,MARIANA,INÊS,LEONOR,CAROLINA,SOFIA,CATARINA,JOANA'),
            _s('LISBOA,PORTO,BRAGA,COIMBRA,FUNCHAL,AVEIRO,SETÚBAL,FARO,ÉVORA,VISEU')),
    'irl': (_s('MURPHY,KELLY,O\'SULLIVAN,WALSH,SMITH,O\'BRIEN,BYRNE,RYAN,O\'CONNOR,O\'NEILL,O\'REILLY,DOYLE,MCCARTHY,GALLAGHER,DOHERTY,KENNEDY,LYNCH,QUINN'),
            _s('JACK,JAMES,NOAH,CONOR,SEÁN,PATRICK,CIARÁN,DARRAGH,OISÍN,EOIN'),
            _s('EMILY,GRACE,FIADH,SOPHIE,AOIFE,SIOBHÁN,NIAMH,CAOIMHE,SAOIRSE,ORLA'),
            _s('DUBLIN,CORK,LIMERICK,GALWAY,WATERFORD,DROGHEDA,KILKENNY,SLIGO,ATHLONE,TRALEE')),
    'aut': (_s('GRUBER,HUBER,BAUER,WAGNER,MÜLLER,PICHLER,STEINER,MOSER,MAYER,HOFER,LEITNER,BERGER,FUCHS,EDER,FISCHER,SCHMID,WINKLER,WEBER,SCHWARZ,MAIER'),
            _s('LUKAS,TOBIAS,DAVID,FLORIAN,ALEXANDER,MARKUS,FABIAN,JULIAN,STEFAN,GEORG'),
            _s('ANNA,LENA,HANNAH,SARAH,JULIA,LAURA,KATHARINA,THERESA,VERENA,BIRGIT'),
            _s('WIEN,GRAZ,LINZ,SALZBURG,INNSBRUCK,KLAGENFURT,VILLACH,WELS,ST. PÖLTEN,DORNBIRN')),
    'che': (_s('MÜLLER,MEIER,SCHMID,KELLER,WEBER,HUBER,SCHNEIDER,MEYER,STEINER,FISCHER,GERBER,BRUNNER,BAUMANN,FREI,ZIMMERMANN,MOSER,WIDMER,WYSS,GRAF,ROTH'),
            _s('LUCA,NOAH,DAVID,MARCO,LUKAS,NICOLAS,DANIEL,URS,BEAT,RETO'),
            _s('MIA,LAURA,SARA,ANNA,NICOLE,SANDRA,ANDREA,CORINNE,REGULA,LEA'),
            _s('ZÜRICH ZH,GENÈVE GE,BASEL BS,LAUSANNE VD,BERN BE,WINTERTHUR ZH,LUZERN LU,ST. GALLEN SG,LUGANO TI')),
    'usa': (_s('SMITH,JOHNSON,WILLIAMS,BROWN,JONES,GARCIA,MILLER,DAVIS,RODRIGUEZ,MARTINEZ,HERNANDEZ,LOPEZ,GONZALEZ,WILSON,ANDERSON,THOMAS,TAYLOR,MOORE,JACKSON,LEE,THOMPSON,WHITE,HARRIS'),
            _s('JAMES,ROBERT,JOHN,MICHAEL,DAVID,WILLIAM,RICHARD,JOSEPH,THOMAS,CHRISTOPHER,MATTHEW,ANTHONY'),
            _s('MARY,PATRICIA,JENNIFER,LINDA,ELIZABETH,BARBARA,SUSAN,JESSICA,SARAH,KAREN,ASHLEY,EMILY'),
            _s('CALIFORNIA&U.S.A.,NEW YORK&U.S.A.,TEXAS&U.S.A.,FLORIDA&U.S.A.,ILLINOIS&U.S.A.,OHIO&U.S.A.,GEORGIA&U.S.A.,WASHINGTON&U.S.A.')),
    'can': (_s('SMITH,BROWN,TREMBLAY,MARTIN,ROY,WILSON,MACDONALD,GAGNON,JOHNSON,TAYLOR,CÔTÉ,CAMPBELL,ANDERSON,LEBLANC,LEE,BOUCHARD,GAUTHIER,MORIN,LAVOIE'),
            _s('LIAM,NOAH,WILLIAM,BENJAMIN,LOGAN,LUCAS,ÉTIENNE,MATHIS,OLIVER,JACOB'),
            _s('OLIVIA,EMMA,CHARLOTTE,AMELIA,AVA,ÉMILIE,CHLOÉ,SOPHIA,FLORENCE,ZOÉ'),
            _s('TORONTO CAN,MONTRÉAL CAN,VANCOUVER CAN,CALGARY CAN,OTTAWA CAN,EDMONTON CAN,WINNIPEG CAN,QUÉBEC CAN,HALIFAX CAN')),
    'aus': (_s('SMITH,JONES,WILLIAMS,BROWN,WILSON,TAYLOR,JOHNSON,WHITE,MARTIN,ANDERSON,THOMPSON,NGUYEN,THOMAS,WALKER,HARRIS,LEE,RYAN,ROBINSON,KELLY,KING'),
            _s('OLIVER,JACK,WILLIAM,NOAH,THOMAS,JAMES,LACHLAN,ETHAN,LIAM,COOPER'),
            _s('CHARLOTTE,OLIVIA,AMELIA,ISLA,MIA,AVA,GRACE,CHLOE,MATILDA,RUBY'),
            _s('SYDNEY,MELBOURNE,BRISBANE,PERTH,ADELAIDE,HOBART,CANBERRA,DARWIN,GEELONG,CAIRNS')),
    'bra': (_s('SILVA,SANTOS,OLIVEIRA,SOUZA,RODRIGUES,FERREIRA,ALVES,PEREIRA,LIMA,GOMES,COSTA,RIBEIRO,MARTINS,CARVALHO,ALMEIDA,DA SILVA,DOS SANTOS,SOARES,BARBOSA'),
            _s('JOÃO,PEDRO,LUCAS,GABRIEL,MATHEUS,RAFAEL,GUILHERME,FELIPE,THIAGO,BRUNO'),
            _s('MARIA,ANA,JULIANA,FERNANDA,BEATRIZ,LARISSA,CAMILA,LETÍCIA,AMANDA,BRUNA'),
            _s('SÃO PAULO/SP,RIO DE JANEIRO/RJ,BELO HORIZONTE/MG,SALVADOR/BA,BRASÍLIA/DF,FORTALEZA/CE,CURITIBA/PR,RECIFE/PE,PORTO ALEGRE/RS,MANAUS/AM')),
    'mex': (_s('HERNÁNDEZ,GARCÍA,MARTÍNEZ,LÓPEZ,GONZÁLEZ,RODRÍGUEZ,PÉREZ,SÁNCHEZ,RAMÍREZ,CRUZ,FLORES,GÓMEZ,MORALES,VÁZQUEZ,REYES,JIMÉNEZ,TORRES,DÍAZ,GUTIÉRREZ,RUIZ'),
            _s('JOSÉ,JUAN,LUIS,CARLOS,JESÚS,MIGUEL,FRANCISCO,ALEJANDRO,JORGE,RICARDO'),
            _s('MARÍA,GUADALUPE,JUANA,MARGARITA,VERÓNICA,LETICIA,ROSA,ADRIANA,XIMENA,FERNANDA'),
            _s('CIUDAD DE MÉXICO,GUADALAJARA JAL.,MONTERREY N.L.,PUEBLA PUE.,TIJUANA B.C.,LEÓN GTO.,MÉRIDA YUC.,OAXACA OAX.')),
    'ind': (_s('KUMAR,SHARMA,SINGH,PATEL,GUPTA,REDDY,RAO,IYER,NAIR,VERMA,JOSHI,MEHTA,CHOUDHARY,DAS,BANERJEE,MUKHERJEE,PILLAI,KHAN,AGARWAL,DESAI'),
            _s('RAHUL,AMIT,RAJESH,SURESH,VIKRAM,ARJUN,ANIL,SANJAY,ROHAN,KARTHIK'),
            _s('PRIYA,ANJALI,SUNITA,DEEPA,KAVYA,POOJA,NEHA,LAKSHMI,DIVYA,MEERA'),
            _s('NEW DELHI,MUMBAI,BENGALURU,CHENNAI,KOLKATA,HYDERABAD,PUNE,AHMEDABAD,JAIPUR,LUCKNOW')),
    'nga': (_s('ADEYEMI,OKAFOR,OKONKWO,BELLO,IBRAHIM,OLADIPO,EZE,NWOSU,ABUBAKAR,MUSA,OGUNLEYE,ADEBAYO,CHUKWU,OKORO,SANI,AKINWANDE,BABATUNDE'),
            _s('CHUKWUEMEKA,OLUWASEUN,IBRAHIM,EMEKA,TUNDE,YUSUF,CHINEDU,ADEBOLA,MUHAMMAD,OLUMIDE'),
            _s('NGOZI,CHIAMAKA,FUNMILAYO,AISHA,ADAEZE,YETUNDE,BLESSING,FATIMA,OLUWAKEMI,IFEOMA'),
            _s('LAGOS,ABUJA,KANO,IBADAN,PORT HARCOURT,BENIN CITY,KADUNA,ENUGU,ONITSHA,JOS')),
    'zaf': (_s('NKOSI,DLAMINI,NDLOVU,MOKOENA,KHUMALO,MTHEMBU,BOTHA,VAN DER MERWE,SMITH,NAIDOO,PILLAY,MAHLANGU,ZULU,SITHOLE,MOLEFE,VAN WYK,PRETORIUS,DU PLESSIS'),
            _s('SIPHO,THABO,BONGANI,JOHANNES,PIETER,LUNGILE,MANDLA,KAGISO,DUMISANI,ANDILE'),
            _s('NOMVULA,THANDI,ZANELE,PALESA,NALEDI,LERATO,ANNELIE,PRECIOUS,NOKUTHULA,AYANDA'),
            _s('JOHANNESBURG,CAPE TOWN,DURBAN,PRETORIA,GQEBERHA,BLOEMFONTEIN,EAST LONDON,POLOKWANE,KIMBERLEY,SOWETO')),
    'tur': (_s('YILMAZ,KAYA,DEMİR,ŞAHİN,ÇELİK,YILDIZ,YILDIRIM,ÖZTÜRK,AYDIN,ÖZDEMİR,ARSLAN,DOĞAN,KILIÇ,ASLAN,ÇETİN,KARA,KOÇ,KURT,ÖZKAN,ŞİMŞEK'),
            _s('MEHMET,MUSTAFA,AHMET,ALİ,HÜSEYİN,HASAN,İBRAHİM,MURAT,EMRE,BURAK'),
            _s('FATMA,AYŞE,EMİNE,HATİCE,ZEYNEP,ELİF,MERVE,ÖZLEM,SEVGİ,GÜL'),
            _s('İSTANBUL,ANKARA,İZMİR,BURSA,ANTALYA,KONYA,ADANA,GAZİANTEP,KAYSERİ,TRABZON')),
    'ukr': (_s('SHEVCHENKO|ШЕВЧЕНКО,KOVALENKO|КОВАЛЕНКО,BONDARENKO|БОНДАРЕНКО,TKACHENKO|ТКАЧЕНКО,KRAVCHENKO|КРАВЧЕНКО,OLIINYK|ОЛІЙНИК,SHEVCHUK|ШЕВЧУК,POLISHCHUK|ПОЛІЩУК,BOIKO|БОЙКО,MELNYK|МЕЛЬНИК,KOVALCHUK|КОВАЛЬЧУК,MARCHENKO|МАРЧЕНКО,LYSENKO|ЛИСЕНКО,RUDENKO|РУДЕНКО,SAVCHENKO|САВЧЕНКО,PETRENKO|ПЕТРЕНКО,MOROZ|МОРОЗ,KLYMENKO|КЛИМЕНКО'),
            _s('OLEKSANDR|ОЛЕКСАНДР,ANDRII|АНДРІЙ,SERHII|СЕРГІЙ,DMYTRO|ДМИТРО,MYKOLA|МИКОЛА,IVAN|ІВАН,VOLODYMYR|ВОЛОДИМИР,YURII|ЮРІЙ,TARAS|ТАРАС,BOHDAN|БОГДАН'),
            _s('OLENA|ОЛЕНА,TETIANA|ТЕТЯНА,NATALIIA|НАТАЛІЯ,IRYNA|ІРИНА,SVITLANA|СВІТЛАНА,OKSANA|ОКСАНА,YULIIA|ЮЛІЯ,KATERYNA|КАТЕРИНА,ANASTASIIA|АНАСТАСІЯ,MARIIA|МАРІЯ'),
            _s('KYIV,KHARKIV,ODESA,DNIPRO,LVIV,ZAPORIZHZHIA,VINNYTSIA,POLTAVA,CHERNIHIV,SUMY')),
    'jpn': (_s('SATO,SUZUKI,TAKAHASHI,TANAKA,WATANABE,ITO,YAMAMOTO,NAKAMURA,KOBAYASHI,KATO,YOSHIDA,YAMADA,SASAKI,YAMAGUCHI,MATSUMOTO,INOUE,KIMURA,HAYASHI,SHIMIZU,SAITO'),
            _s('HIROSHI,TAKESHI,KENJI,YUKI,DAICHI,HARUTO,SOTA,RYOTA,KAITO,SHOTA'),
            _s('YUKO,AKIKO,HARUKA,YUI,SAKURA,AOI,MISAKI,NANAMI,EMI,MAI'),
            _s('TOKYO,OSAKA,KANAGAWA,AICHI,HOKKAIDO,FUKUOKA,HYOGO,SAITAMA,CHIBA,KYOTO')),
}

COUNTRIES = list(NAMES.keys())

# English name, local name (or None)
COUNTRY_NAME = {
    'gbr': ('UNITED KINGDOM OF GREAT BRITAIN AND NORTHERN IRELAND', None),
    'deu': ('FEDERAL REPUBLIC OF GERMANY', 'BUNDESREPUBLIK DEUTSCHLAND'),
    'fra': ('FRENCH REPUBLIC', 'RÉPUBLIQUE FRANÇAISE'),
    'esp': ('KINGDOM OF SPAIN', 'REINO DE ESPAÑA'),
    'ita': ('ITALIAN REPUBLIC', 'REPUBBLICA ITALIANA'),
    'nld': ('KINGDOM OF THE NETHERLANDS', 'KONINKRIJK DER NEDERLANDEN'),
    'bel': ('KINGDOM OF BELGIUM', 'ROYAUME DE BELGIQUE'),
    'pol': ('REPUBLIC OF POLAND', 'RZECZPOSPOLITA POLSKA'),
    'swe': ('SWEDEN', 'SVERIGE'),
    'prt': ('PORTUGUESE REPUBLIC', 'REPÚBLICA PORTUGUESA'),
    'irl': ('IRELAND', 'ÉIRE'),
    'aut': ('REPUBLIC OF AUSTRIA', 'REPUBLIK ÖSTERREICH'),
    'che': ('SWISS CONFEDERATION', 'SCHWEIZERISCHE EIDGENOSSENSCHAFT'),
    'usa': ('UNITED STATES OF AMERICA', None),
    'can': ('CANADA', None),
    'aus': ('AUSTRALIA', None),
    'bra': ('FEDERATIVE REPUBLIC OF BRAZIL', 'REPÚBLICA FEDERATIVA DO BRASIL'),
    'mex': ('UNITED MEXICAN STATES', 'ESTADOS UNIDOS MEXICANOS'),
    'ind': ('REPUBLIC OF INDIA', None),
    'nga': ('FEDERAL REPUBLIC OF NIGERIA', None),
    'zaf': ('REPUBLIC OF SOUTH AFRICA', None),
    'tur': ('REPUBLIC OF TÜRKİYE', 'TÜRKİYE CUMHURİYETİ'),
    'ukr': ('UKRAINE', 'УКРАЇНА'),
    'jpn': ('JAPAN', None),
}

NAT_WORD = {
    'gbr': 'BRITISH CITIZEN', 'deu': 'DEUTSCH', 'fra': 'FRANÇAISE',
    'esp': 'ESPAÑOLA', 'ita': 'ITALIANA', 'nld': 'NEDERLANDSE', 'bel': 'BELGE',
    'pol': 'POLSKIE', 'swe': 'SVENSK', 'prt': 'PORTUGUESA', 'irl': 'ÉIREANNACH/IRISH',
    'aut': 'ÖSTERREICH', 'che': 'SCHWEIZ SUISSE SVIZZERA', 'usa': 'UNITED STATES OF AMERICA',
    'can': 'CANADIAN/CANADIENNE', 'aus': 'AUSTRALIAN', 'bra': 'BRASILEIRO(A)',
    'mex': 'MEXICANA', 'ind': 'INDIAN', 'nga': 'NIGERIAN', 'zaf': 'SOUTH AFRICAN',
    'tur': 'T.C./TUR', 'ukr': 'УКРАЇНА/UKR', 'jpn': 'JAPAN',
}

AUTHORITY = {
    'gbr': ['HMPO'], 'deu': ['STADT KÖLN', 'BEZIRKSAMT MITTE VON BERLIN', 'LANDESHAUPTSTADT MÜNCHEN'],
    'fra': ['PRÉFECTURE DE POLICE', 'PRÉFECTURE DU RHÔNE'], 'esp': ['DGP 28001', 'DGP 08019'],
    'ita': ['MINISTRO AFFARI ESTERI', 'COMUNE DI ROMA', 'QUESTURA DI MILANO'],
    'nld': ['BURG. VAN AMSTERDAM', 'BURG. VAN UTRECHT'], 'bel': ['BRUXELLES', 'ANTWERPEN', 'LIÈGE'],
    'pol': ['WOJEWODA MAZOWIECKI', 'PREZYDENT M. KRAKOWA'], 'swe': ['POLISMYNDIGHETEN'],
    'prt': ['SEF', 'IRN'], 'irl': ['DFA / ROINN GNÓTHAÍ EACHTRACHA'],
    'aut': ['BH WIEN', 'BH GRAZ'], 'che': ['FEDPOL', 'ZÜRICH'],
    'usa': ['UNITED STATES DEPARTMENT OF STATE'], 'can': ['GATINEAU'], 'aus': ['AUSTRALIA'],
    'bra': ['POLÍCIA FEDERAL'], 'mex': ['SRE'], 'ind': ['MUMBAI', 'DELHI', 'CHENNAI'],
    'nga': ['NIS ABUJA', 'NIS LAGOS'], 'zaf': ['DHA'], 'tur': ['İÇİŞLERİ BAKANLIĞI'],
    'ukr': ['4610', '8031'], 'jpn': ['MINISTRY OF FOREIGN AFFAIRS'],
}

STREETS = {
    'deu': ('HAUPTSTRASSE,BAHNHOFSTR.,GARTENWEG,LINDENALLEE,SCHILLERSTR.', '{n} {s}|{p:05d} {c}'),
    'aut': ('HAUPTSTRASSE,KIRCHENGASSE,RINGSTRASSE', '{s} {n}|{p:04d} {c}'),
    'che': ('BAHNHOFSTRASSE,DORFSTRASSE,SEESTRASSE', '{s} {n}|{p:04d} {c}'),
    'fra': ('RUE DE LA PAIX,AVENUE JEAN JAURÈS,RUE VICTOR HUGO,BD GAMBETTA', '{n} {s}|{p:05d} {c}'),
    'bel': ('RUE ROYALE,KERKSTRAAT,STATIONSSTRAAT', '{s} {n}|{p:04d} {c}'),
    'esp': ('C. MAYOR,AVDA. DE LA CONSTITUCIÓN,C. REAL', '{s} {n}|{c}'),
    'ita': ('VIA ROMA,VIA GARIBALDI,CORSO ITALIA', '{s} {n}|{p:05d} {c}'),
    'nld': ('KERKSTRAAT,DORPSSTRAAT,MOLENWEG', '{s} {n}|{p:04d} AB {c}'),
    'pol': ('UL. DŁUGA,UL. KOŚCIUSZKI,UL. MICKIEWICZA', '{s} {n}|{c}'),
    'swe': ('STORGATAN,KYRKOGATAN,SKOLGATAN', '{s} {n}|{p:05d} {c}'),
    'prt': ('RUA DA LIBERDADE,AV. DA REPÚBLICA', '{s} {n}|{c}'),
    'usa': ('MAIN ST,OAK AVE,PARK BLVD,ELM ST,MAPLE DR', '{n} {s}|{c}'),
    'can': ('MAIN ST,RUE PRINCIPALE,KING ST W', '{n} {s}|{c}'),
    'ukr': ('VUL. SHEVCHENKA,VUL. HRUSHEVSKOHO,PROSP. PEREMOHY', '{s}, {n}|{c}'),
    'tur': ('ATATÜRK CAD.,CUMHURİYET MAH.,İSTİKLAL CAD.', '{s} NO:{n}|{c}'),
    'mex': ('AV. REFORMA,CALLE HIDALGO,AV. JUÁREZ', '{s} {n}|{c}'),
}

# label languages per issuing country (national first)
LANGS = {
    'gbr': ['en', 'fr'], 'deu': ['de', 'en', 'fr'], 'fra': ['fr', 'en'], 'esp': ['es', 'en', 'fr'],
    'ita': ['it', 'en', 'fr'], 'nld': ['nl', 'en', 'fr'], 'bel': ['fr', 'nl', 'de', 'en'],
    'pol': ['pl', 'en', 'fr'], 'swe': ['sv', 'en', 'fr'], 'prt': ['pt', 'en', 'fr'],
    'irl': ['ga', 'en', 'fr'], 'aut': ['de', 'en', 'fr'], 'che': ['de', 'fr', 'it', 'en'],
    'usa': ['en', 'fr', 'es'], 'can': ['en', 'fr'], 'aus': ['en'], 'bra': ['pt', 'en', 'es'],
    'mex': ['es', 'en', 'fr'], 'ind': ['en'], 'nga': ['en'], 'zaf': ['en', 'fr'],
    'tur': ['tr', 'en', 'fr'], 'ukr': ['uk', 'en'], 'jpn': ['en'],
}

LABEL_KEYS = ['passport', 'idcard', 'rp', 'dl', 'type', 'code', 'pno', 'docno', 'surname',
              'given', 'nationality', 'birth', 'sex', 'place', 'issue', 'expiry', 'authority',
              'signature', 'address', 'height', 'eyes', 'personal', 'remarks', 'ptype']
_LBL = {
    'en': 'PASSPORT|IDENTITY CARD|RESIDENCE PERMIT|DRIVING LICENCE|Type|Code|Passport No.|Document No.|Surname|Given names|Nationality|Date of birth|Sex|Place of birth|Date of issue|Date of expiry|Authority|Holder\'s signature|Address|Height|Colour of eyes|Personal No.|Remarks|Type of permit',
    'fr': 'PASSEPORT|CARTE NATIONALE D\'IDENTITÉ|TITRE DE SÉJOUR|PERMIS DE CONDUIRE|Type|Code du pays|Passeport n°|N° du document|Nom|Prénoms|Nationalité|Date de naissance|Sexe|Lieu de naissance|Date de délivrance|Date d\'expiration|Autorité|Signature du titulaire|Adresse|Taille|Couleur des yeux|N° personnel|Observations|Type de titre',
    'de': 'REISEPASS|PERSONALAUSWEIS|AUFENTHALTSTITEL|FÜHRERSCHEIN|Typ|Kode|Pass-Nr.|Dokumentennr.|Name|Vornamen|Staatsangehörigkeit|Geburtstag|Geschlecht|Geburtsort|Ausstellungsdatum|Gültig bis|Behörde|Unterschrift des Inhabers|Anschrift|Größe|Augenfarbe|Pers.-Nr.|Anmerkungen|Art des Titels',
    'es': 'PASAPORTE|DOCUMENTO NACIONAL DE IDENTIDAD|PERMISO DE RESIDENCIA|PERMISO DE CONDUCCIÓN|Tipo|Código|Pasaporte N°|N° de documento|Apellidos|Nombre|Nacionalidad|Fecha de nacimiento|Sexo|Lugar de nacimiento|Fecha de expedición|Fecha de caducidad|Autoridad|Firma del titular|Domicilio|Estatura|Color de ojos|N° personal|Observaciones|Tipo de permiso',
    'it': 'PASSAPORTO|CARTA D\'IDENTITÀ|PERMESSO DI SOGGIORNO|PATENTE DI GUIDA|Tipo|Codice|Passaporto N.|N. documento|Cognome|Nome|Cittadinanza|Data di nascita|Sesso|Luogo di nascita|Data di rilascio|Data di scadenza|Autorità|Firma del titolare|Indirizzo|Statura|Colore degli occhi|N. personale|Annotazioni|Tipo di permesso',
    'nl': 'PASPOORT|IDENTITEITSKAART|VERBLIJFSDOCUMENT|RIJBEWIJS|Soort|Code|Paspoortnr.|Documentnr.|Naam|Voornamen|Nationaliteit|Geboortedatum|Geslacht|Geboorteplaats|Datum van afgifte|Geldig tot|Autoriteit|Handtekening houder|Adres|Lengte|Kleur ogen|Persoonsnummer|Opmerkingen|Soort vergunning',
    'pl': 'PASZPORT|DOWÓD OSOBISTY|KARTA POBYTU|PRAWO JAZDY|Typ|Kod|Nr paszportu|Numer dokumentu|Nazwisko|Imiona|Obywatelstwo|Data urodzenia|Płeć|Miejsce urodzenia|Data wydania|Data ważności|Organ wydający|Podpis posiadacza|Adres|Wzrost|Kolor oczu|Nr PESEL|Uwagi|Rodzaj zezwolenia',
    'sv': 'PASS|NATIONELLT IDENTITETSKORT|UPPEHÅLLSTILLSTÅND|KÖRKORT|Typ|Kod|Passnummer|Dokumentnummer|Efternamn|Förnamn|Nationalitet|Födelsedatum|Kön|Födelseort|Utfärdandedatum|Sista giltighetsdag|Myndighet|Innehavarens namnteckning|Adress|Längd|Ögonfärg|Personnummer|Anmärkningar|Typ av tillstånd',
    'pt': 'PASSAPORTE|CARTÃO DE CIDADÃO|TÍTULO DE RESIDÊNCIA|CARTA DE CONDUÇÃO|Tipo|Código|Passaporte N.º|N.º documento|Apelido(s)|Nome(s) próprio(s)|Nacionalidade|Data de nascimento|Sexo|Local de nascimento|Data de emissão|Data de validade|Autoridade|Assinatura do titular|Morada|Altura|Cor dos olhos|N.º de identificação|Observações|Tipo de título',
    'tr': 'PASAPORT|KİMLİK KARTI|İKAMET İZNİ|SÜRÜCÜ BELGESİ|Türü|Ülke kodu|Pasaport No|Seri No|Soyadı|Adı|Uyruğu|Doğum tarihi|Cinsiyeti|Doğum yeri|Veriliş tarihi|Geçerlilik tarihi|Makam|İmza|Adres|Boy|Göz rengi|T.C. Kimlik No|Açıklamalar|İzin türü',
    'uk': 'ПАСПОРТ|ПАСПОРТ ГРОМАДЯНИНА УКРАЇНИ|ПОСВІДКА НА ПРОЖИВАННЯ|ПОСВІДЧЕННЯ ВОДІЯ|Тип|Код держави|Номер паспорта|Документ №|Прізвище|Ім\'я|Громадянство|Дата народження|Стать|Місце народження|Дата видачі|Дата закінчення строку дії|Орган, що видав|Підпис|Адреса|Зріст|Колір очей|Запис №|Примітки|Тип посвідки',
    'ga': 'PAS|CÁRTA AITHEANTAIS|CEAD CÓNAITHE|CEADÚNAS TIOMÁNA|Cineál|Cód|Pas Uimh.|Uimh. doiciméid|Sloinne|Réamhainm|Náisiúntacht|Dáta breithe|Gnéas|Áit bhreithe|Dáta eisiúna|Dáta éaga|Údarás|Síniú|Seoladh|Airde|Dath na súl|Uimh. phearsanta|Nótaí|Cineál ceada',
}
LABELS = {lang: dict(zip(LABEL_KEYS, txt.split('|'))) for lang, txt in _LBL.items()}

MONTHS = {
    'en': 'JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC',
    'fr': 'JANV FÉVR MARS AVR MAI JUIN JUIL AOÛT SEPT OCT NOV DÉC',
    'de': 'JAN FEB MÄR APR MAI JUN JUL AUG SEP OKT NOV DEZ',
    'es': 'ENE FEB MAR ABR MAY JUN JUL AGO SEP OCT NOV DIC',
    'it': 'GEN FEB MAR APR MAG GIU LUG AGO SET OTT NOV DIC',
    'nl': 'JAN FEB MRT APR MEI JUN JUL AUG SEP OKT NOV DEC',
    'pl': 'STY LUT MAR KWI MAJ CZE LIP SIE WRZ PAŹ LIS GRU',
    'sv': 'JAN FEB MAR APR MAJ JUN JUL AUG SEP OKT NOV DEC',
    'pt': 'JAN FEV MAR ABR MAI JUN JUL AGO SET OUT NOV DEZ',
    'tr': 'OCA ŞUB MAR NİS MAY HAZ TEM AĞU EYL EKİ KAS ARA',
    'uk': 'СІЧ ЛЮТ БЕР КВІ ТРА ЧЕР ЛИП СЕР ВЕР ЖОВ ЛИС ГРУ',
    'ga': 'EAN FEA MÁR AIB BEA MEI IÚI LÚN MFÓ DFÓ SAM NOL',
}
MONTHS = {k: v.split() for k, v in MONTHS.items()}

# Passport date styles per country (the first is the usual one)
PASSPORT_DATE_STYLE = {
    'gbr': ['mon_bi_yy'], 'deu': ['dot'], 'fra': ['space'], 'esp': ['space', 'mon_bi'],
    'ita': ['mon_bi'], 'nld': ['mon_bi'], 'bel': ['mon_bi'], 'pol': ['mon_bi', 'dot'],
    'swe': ['mon'], 'prt': ['mon', 'mon_bi'], 'irl': ['mon_bi'], 'aut': ['mon_bi', 'dot'],
    'che': ['space', 'dot'], 'usa': ['mon_mixed'], 'can': ['mon_bi'], 'aus': ['mon'],
    'bra': ['slash', 'mon_bi'], 'mex': ['mon_bi', 'slash'], 'ind': ['slash'], 'nga': ['mon'],
    'zaf': ['mon'], 'tur': ['mon_bi', 'dot'], 'ukr': ['mon_bi'], 'jpn': ['mon'],
}
CARD_DATE_STYLE = {
    'deu': ['dot'], 'fra': ['dot', 'space'], 'esp': ['space'], 'ita': ['dot', 'slash'],
    'nld': ['mon_bi'], 'bel': ['dot', 'space'], 'pol': ['dot'], 'swe': ['dot', 'space'],
    'prt': ['space'], 'aut': ['dot'], 'che': ['dot'], 'tur': ['dot'], 'ukr': ['space', 'dot'],
    'mex': ['slash'], 'irl': ['mon'], 'gbr': ['dot', 'slash'], 'usa': ['us'],
}

EU_DL = ['gbr', 'deu', 'fra', 'esp', 'ita', 'nld', 'bel', 'pol', 'swe', 'prt', 'irl', 'aut', 'che', 'tur', 'ukr']
US_DL = ['usa', 'can']
GENERIC_DL = ['aus', 'bra', 'mex', 'ind', 'nga', 'zaf', 'jpn']
EU_DL_CODE = {'gbr': 'UK', 'deu': 'D', 'fra': 'F', 'esp': 'E', 'ita': 'I', 'nld': 'NL', 'bel': 'B',
              'pol': 'PL', 'swe': 'S', 'prt': 'P', 'irl': 'IRL', 'aut': 'A', 'che': 'CH',
              'tur': 'TR', 'ukr': 'UA'}
ID_CARD_COUNTRIES = ['deu', 'fra', 'esp', 'ita', 'nld', 'bel', 'pol', 'swe', 'prt', 'aut', 'che',
                     'tur', 'ukr', 'mex', 'irl']
RP_COUNTRIES = ['gbr', 'deu', 'fra', 'esp', 'ita', 'nld', 'bel', 'pol', 'swe', 'prt', 'irl',
                'aut', 'che', 'usa']
RP_HOLDER_NATS = ['tur', 'ukr', 'ind', 'nga', 'bra', 'mex', 'usa', 'can', 'aus', 'jpn', 'zaf']
ID_DOC_CODE = {'deu': 'ID', 'fra': 'ID', 'esp': 'ID', 'ita': 'CI', 'bel': 'ID', 'pol': 'ID',
               'aut': 'ID', 'che': 'ID', 'ukr': 'ID', 'mex': 'ID'}
US_STATES = ['CALIFORNIA', 'TEXAS', 'NEW YORK', 'FLORIDA', 'ILLINOIS', 'WASHINGTON', 'OHIO',
             'GEORGIA', 'COLORADO', 'ARIZONA']
CA_PROVINCES = ['ONTARIO', 'BRITISH COLUMBIA', 'ALBERTA', 'QUÉBEC', 'MANITOBA', 'NOVA SCOTIA']


def mrz_state(cc):
    """Issuing state / nationality code as written in an MRZ."""
    return 'D<<' if cc == 'deu' else cc.upper()


# ---------------------------------------------------------------------------
# Dates
# ---------------------------------------------------------------------------

def add_years(d, n):
    try:
        return d.replace(year=d.year + n)
    except ValueError:
        return d.replace(year=d.year + n, day=28)


def age_on(birth, today):
    return today.year - birth.year - ((today.month, today.day) < (birth.month, birth.day))


def rand_date(rng, lo, hi):
    span = (hi - lo).days
    return lo + dt.timedelta(days=rng.randint(0, max(0, span)))


def birth_for_age(rng, today, amin, amax):
    """A birth date giving an age in [amin, amax] with a few days of margin."""
    hi = add_years(today, -amin) - dt.timedelta(days=3)
    lo = add_years(today, -(amax + 1)) + dt.timedelta(days=3)
    return rand_date(rng, lo, hi)


def yymmdd(d):
    return d.strftime('%y%m%d')


def fmt_date(d, style, langs):
    """Print a date the way issuers do."""
    en = MONTHS['en'][d.month - 1]
    loc = None
    for lg in langs:
        if lg != 'en' and lg in MONTHS:
            loc = MONTHS[lg][d.month - 1]
            break
    if style == 'dot':
        return d.strftime('%d.%m.%Y')
    if style == 'slash':
        return d.strftime('%d/%m/%Y')
    if style == 'space':
        return d.strftime('%d %m %Y')
    if style == 'us':
        return d.strftime('%m/%d/%Y')
    if style == 'ymd':
        return d.strftime('%Y/%m/%d')
    if style == 'dash':
        return d.strftime('%d-%m-%Y')
    if style == 'mon':
        return '%02d %s %d' % (d.day, en, d.year)
    if style == 'mon_mixed':
        return '%02d %s %d' % (d.day, en.capitalize(), d.year)
    if style in ('mon_bi', 'mon_bi_yy'):
        if loc and loc != en:
            m = '%s/%s' % (loc, en) if langs[0] != 'en' else '%s /%s' % (en, loc)
        else:
            m = en
        y = ('%02d' % (d.year % 100)) if style == 'mon_bi_yy' else str(d.year)
        return '%02d %s %s' % (d.day, m, y)
    raise ValueError(style)


# ---------------------------------------------------------------------------
# MRZ (ICAO 9303)
# ---------------------------------------------------------------------------

def mrz_char_value(c):
    if '0' <= c <= '9':
        return ord(c) - 48
    if 'A' <= c <= 'Z':
        return ord(c) - 55
    if c == '<':
        return 0
    raise ValueError('not an MRZ character: %r' % c)


def check_digit(s):
    w = (7, 3, 1)
    return str(sum(mrz_char_value(c) * w[i % 3] for i, c in enumerate(s)) % 10)


_TRANSLIT = {'Ä': 'AE', 'Ö': 'OE', 'Ü': 'UE', 'ß': 'SS', 'Å': 'AA', 'Æ': 'AE', 'Ø': 'OE',
             'Œ': 'OE', 'Þ': 'TH', 'Ð': 'D', 'Ł': 'L', 'Đ': 'D', 'Ħ': 'H', 'Ĳ': 'IJ', 'ẞ': 'SS'}


def mrz_translit(s):
    """Latin name -> MRZ characters (ICAO 9303 Part 3 transliteration)."""
    out = []
    for ch in s.upper():
        if ch in _TRANSLIT:
            out.append(_TRANSLIT[ch])
            continue
        base = ''.join(c for c in unicodedata.normalize('NFD', ch) if not unicodedata.combining(c))
        for b in base:
            if 'A' <= b <= 'Z' or '0' <= b <= '9':
                out.append(b)
            elif b in ' -<':
                out.append('<')
            # apostrophes, dots, commas are dropped
    return ''.join(out)


def mrz_name(surname, given, length):
    s = re.sub('<+', '<', mrz_translit(surname)).strip('<')
    g = re.sub('<+', '<', mrz_translit(given)).strip('<')
    full = s + '<<' + g if g else s
    if len(full) > length:
        if len(s) >= length - 3:
            full = s[:length - 3] + '<<' + g[:1]
        full = full[:length].rstrip('<')
    return full.ljust(length, '<')


def mrz_td3(code, state, surname, given, number, nat, birth, sex, expiry, personal='',
            empty_cd='<'):
    l1 = code.ljust(2, '<') + state + mrz_name(surname, given, 39)
    num = number.ljust(9, '<')[:9]
    pers = personal.ljust(14, '<')[:14]
    pcd = check_digit(pers) if personal else empty_cd
    l2 = (num + check_digit(num) + nat + birth + check_digit(birth) + sex + expiry +
          check_digit(expiry) + pers + pcd)
    l2 += check_digit(l2[0:10] + l2[13:20] + l2[21:43])
    return [l1, l2]


def mrz_td1(code, state, number, birth, sex, expiry, nat, surname, given, opt1='', opt2=''):
    if len(number) <= 9:
        n = number.ljust(9, '<')
        f = n + check_digit(n) + opt1.ljust(15, '<')[:15]
    else:  # long document number: overflow into the optional data (ICAO 9303-5)
        tail = number[9:] + check_digit(number)
        if opt1:
            tail += '<' + opt1
        f = number[:9] + '<' + tail.ljust(15, '<')[:15]
    l1 = code.ljust(2, '<') + state + f
    l2 = birth + check_digit(birth) + sex + expiry + check_digit(expiry) + nat + opt2.ljust(11, '<')[:11]
    l2 += check_digit(l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29])
    l3 = mrz_name(surname, given, 30)
    return [l1, l2, l3]


def mrz_td2(code, state, surname, given, number, nat, birth, sex, expiry, opt=''):
    l1 = code.ljust(2, '<') + state + mrz_name(surname, given, 31)
    if len(number) <= 9:
        n = number.ljust(9, '<')
        n += check_digit(n)
        o = opt.ljust(7, '<')[:7]
    else:
        n = number[:9] + '<'
        o = (number[9:] + check_digit(number) + opt).ljust(7, '<')[:7]
    l2 = n + nat + birth + check_digit(birth) + sex + expiry + check_digit(expiry) + o
    l2 += check_digit(l2[0:10] + l2[13:20] + l2[21:35])
    return [l1, l2]


def mrz_is_valid(lines):
    """Checks every check digit of a TD1/TD2/TD3 MRZ (used by the self-test)."""
    if len(lines) == 2 and len(lines[0]) == 44:
        l2 = lines[1]
        ok = (check_digit(l2[0:9]) == l2[9] and check_digit(l2[13:19]) == l2[19]
              and check_digit(l2[21:27]) == l2[27]
              and (l2[42] in (check_digit(l2[28:42]), '<') if l2[28:42].strip('<') == '' else
                   check_digit(l2[28:42]) == l2[42])
              and check_digit(l2[0:10] + l2[13:20] + l2[21:43]) == l2[43])
        return ok
    if len(lines) == 2 and len(lines[0]) == 36:
        l2 = lines[1]
        num_ok = check_digit(l2[0:9]) == l2[9] if l2[9] != '<' else True
        return (num_ok and check_digit(l2[13:19]) == l2[19] and check_digit(l2[21:27]) == l2[27]
                and check_digit(l2[0:10] + l2[13:20] + l2[21:35]) == l2[35])
    if len(lines) == 3:
        l1, l2 = lines[0], lines[1]
        if l1[14] == '<' and l1[15:30].strip('<'):
            m = re.match(r'([0-9A-Z]+)([0-9])', l1[15:30])
            num_ok = m is not None and check_digit(l1[5:14] + m.group(1)) == m.group(2)
        else:
            num_ok = check_digit(l1[5:14]) == l1[14]
        return (num_ok and check_digit(l2[0:6]) == l2[6] and check_digit(l2[8:14]) == l2[14]
                and check_digit(l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29]) == l2[29])
    return False


def selftest():
    fails = []

    def eq(name, got, want):
        if got != want:
            fails.append('%s: got %r want %r' % (name, got, want))

    # ICAO 9303 Part 4 specimen (TD3, Utopia)
    td3 = mrz_td3('P', 'UTO', 'ERIKSSON', 'ANNA MARIA', 'L898902C3', 'UTO', '740812', 'F',
                  '120415', 'ZE184226B')
    eq('td3 line1', td3[0], 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<')
    eq('td3 line2', td3[1], 'L898902C36UTO7408122F1204159ZE184226B<<<<<10')
    # ICAO 9303 Part 5 specimen (TD1)
    td1 = mrz_td1('I', 'UTO', 'D23145890', '740812', 'F', '120415', 'UTO', 'ERIKSSON', 'ANNA MARIA')
    eq('td1 line1', td1[0], 'I<UTOD231458907<<<<<<<<<<<<<<<')
    eq('td1 line2', td1[1], '7408122F1204159UTO<<<<<<<<<<<6')
    eq('td1 line3', td1[2], 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<')
    # ICAO 9303 Part 6 specimen (TD2)
    td2 = mrz_td2('I', 'UTO', 'ERIKSSON', 'ANNA MARIA', 'D23145890', 'UTO', '740812', 'F', '120415')
    eq('td2 line1', td2[0], 'I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<')
    eq('td2 line2', td2[1], 'D231458907UTO7408122F1204159<<<<<<<6')
    # TD1 with a 12-character document number (overflow into optional data)
    ov = mrz_td1('I', 'UTO', 'D23145890734', '740812', 'F', '120415', 'UTO', 'ERIKSSON', 'ANNA MARIA')
    eq('td1 overflow line1', ov[0], 'I<UTOD23145890<7349<<<<<<<<<<<')
    # check digits on single fields
    eq('cd L898902C3', check_digit('L898902C3'), '6')
    eq('cd 740812', check_digit('740812'), '2')
    eq('cd 120415', check_digit('120415'), '9')
    eq('cd fillers', check_digit('<<<<<<<<<<<<<<'), '0')
    eq('cd D23145890', check_digit('D23145890'), '7')
    for lines in (td3, td1, td2, ov):
        eq('valid %s' % lines[0][:5], mrz_is_valid(lines), True)
    bad = list(td3)
    bad[1] = bad[1][:19] + '3' + bad[1][20:]
    eq('corrupted birth check digit detected', mrz_is_valid(bad), False)
    # transliteration and truncation
    eq('translit', mrz_translit("MÜLLER-LÜDENSCHEIDT O'BRIEN ŁUKASZ ÑANDÚ"),
       'MUELLER<LUEDENSCHEIDT<OBRIEN<LUKASZ<NANDU')
    eq('truncate', mrz_name('WOLFESCHLEGELSTEINHAUSENBERGERDORFF', 'HUBERT BLAINE', 30),
       'WOLFESCHLEGELSTEINHAUSENBER<<H')
    eq('name length', len(mrz_name('A', 'B C', 39)), 39)
    # dates
    eq('fmt mon_bi', fmt_date(dt.date(1990, 3, 7), 'mon_bi', ['fr', 'en']), '07 MARS/MAR 1990')
    eq('fmt us', fmt_date(dt.date(1990, 3, 7), 'us', ['en']), '03/07/1990')
    eq('age', age_on(dt.date(2008, 6, 2), dt.date(2026, 6, 1)), 17)
    eq('age2', age_on(dt.date(2008, 6, 1), dt.date(2026, 6, 1)), 18)
    # every MRZ the case builder composes must be well-formed and agree with the truth
    today = dt.date(2026, 6, 1)
    ndocs = 0
    for i in range(400):
        kind = [c for c, _ in CASE_WEIGHTS][i % len(CASE_WEIGHTS)]
        d = make_doc(kind, random.Random(1000 + i), today)
        ndocs += 1
        if not d['mrz']:
            eq('licence has no MRZ %d' % i, d['dtype'], 'DriverLicense')
            continue
        ln = {3: 30, 2: len(d['mrz'][0])}[len(d['mrz'])]
        ok = all(len(l) == ln for l in d['mrz']) and all(re.fullmatch('[A-Z0-9<]+', l) for l in d['mrz'])
        eq('mrz shape %d %s' % (i, d['mrz']), ok, True)
        eq('mrz check digits %d %s' % (i, d['mrz']), mrz_is_valid(d['mrz']), True)
        joined = ''.join(d['mrz'])
        eq('mrz birth %d' % i, dt.date.fromisoformat(d['truth']['birth']).strftime('%y%m%d') in joined, True)
        eq('mrz expiry %d' % i, dt.date.fromisoformat(d['truth']['expiry']).strftime('%y%m%d') in joined, True)
        eq('mrz number %d' % i, d['truth']['number'][:9] in joined, True)
        age = age_on(dt.date.fromisoformat(d['truth']['birth']), today)
        exp_ok = dt.date.fromisoformat(d['truth']['expiry']) >= today
        pb = dt.date.fromisoformat(d['printed']['birth'])
        pe = dt.date.fromisoformat(d['printed']['expiry'])
        if kind == 'minor':
            eq('minor age %d' % i, 13 <= age <= 17, True)
        elif kind == 'expired':
            eq('expired %d' % i, (not exp_ok) and age >= 18, True)
        elif kind == 'forged_birth':
            eq('forged birth %d' % i, age >= 18 and 15 <= age_on(pb, today) <= 16, True)
        elif kind == 'forged_expiry':
            eq('forged expiry %d' % i, exp_ok and pe < today, True)
        elif kind == 'forged_number':
            diff = sum(a != b for a, b in zip(re.sub('[- ]', '', d['printed']['number']), d['truth']['number']))
            eq('forged number %d' % i, 2 <= diff <= 3, True)
        elif kind == 'forged_surname':
            eq('forged surname %d' % i, tr_name(d['printed']['surname']) != d['truth']['surname'], True)
        else:
            eq('adult+current %d %s' % (i, kind), age >= 18 and exp_ok, True)
            eq('zones agree %d' % i, (pb, pe) == (dt.date.fromisoformat(d['truth']['birth']),
                                                 dt.date.fromisoformat(d['truth']['expiry'])), True)
    if fails:
        for f in fails[:40]:
            print('FAIL', f)
        print('selftest: %d failures' % len(fails))
        return 1
    print('selftest: ICAO specimens (TD1/TD2/TD3, overflow), check digits, transliteration, '
          'dates and %d generated documents all OK' % ndocs)
    return 0


# ---------------------------------------------------------------------------
# Identities, numbers, personal numbers
# ---------------------------------------------------------------------------

DIG = '0123456789'
LET = 'ABCDEFGHJKLMNPRSTUVWXYZ'


def _d(rng, n):
    return ''.join(rng.choice(DIG) for _ in range(n))


def _l(rng, n, al=LET):
    return ''.join(rng.choice(al) for _ in range(n))


def doc_number(cc, dtype, rng):
    if dtype == 'Passport':
        f = {
            'gbr': lambda: _d(rng, 9), 'usa': lambda: _d(rng, 9),
            'deu': lambda: 'C' + _l(rng, 8, 'CFGHJKLMNPRTVWXYZ0123456789'),
            'fra': lambda: _d(rng, 2) + _l(rng, 2) + _d(rng, 5),
            'esp': lambda: _l(rng, 3) + _d(rng, 6), 'ita': lambda: _l(rng, 2) + _d(rng, 7),
            'nld': lambda: _l(rng, 2) + _l(rng, 6, 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789') + _d(rng, 1),
            'bel': lambda: _l(rng, 2) + _d(rng, 6), 'pol': lambda: _l(rng, 2) + _d(rng, 7),
            'swe': lambda: _d(rng, 8), 'prt': lambda: _l(rng, 1) + _d(rng, 6),
            'irl': lambda: _l(rng, 2) + _d(rng, 7), 'aut': lambda: _l(rng, 1) + _d(rng, 7),
            'che': lambda: _l(rng, 1) + _d(rng, 7), 'can': lambda: _l(rng, 2) + _d(rng, 6),
            'aus': lambda: _l(rng, rng.choice([1, 2])) + _d(rng, 7),
            'bra': lambda: _l(rng, 2) + _d(rng, 6), 'mex': lambda: _l(rng, 1) + _d(rng, 8),
            'ind': lambda: _l(rng, 1) + _d(rng, 7), 'nga': lambda: _l(rng, 1) + _d(rng, 8),
            'zaf': lambda: _l(rng, 1) + _d(rng, 8), 'tur': lambda: 'U' + _d(rng, 8),
            'ukr': lambda: _l(rng, 2) + _d(rng, 6), 'jpn': lambda: _l(rng, 2) + _d(rng, 7),
        }[cc]
        return f()
    if dtype == 'IdCard':
        f = {
            'deu': lambda: _l(rng, 1, 'LMNPRTVWXY') + _l(rng, 8, 'CFGHJKLMNPRTVWXYZ0123456789'),
            'fra': lambda: _l(rng, 9, 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789'),
            'esp': lambda: _l(rng, 3) + _d(rng, 6), 'ita': lambda: 'CA' + _d(rng, 5) + _l(rng, 2),
            'nld': lambda: _l(rng, 2) + _l(rng, 6, 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789') + _d(rng, 1),
            'bel': lambda: _d(rng, 12), 'pol': lambda: _l(rng, 3) + _d(rng, 6),
            'swe': lambda: _d(rng, 8), 'prt': lambda: _d(rng, 9) + _l(rng, 2) + _d(rng, 1),
            'aut': lambda: _l(rng, 1) + _d(rng, 7), 'che': lambda: _l(rng, 1) + _d(rng, 7),
            'tur': lambda: _l(rng, 1) + _d(rng, 2) + _l(rng, 1) + _d(rng, 5),
            'ukr': lambda: _d(rng, 9), 'mex': lambda: _d(rng, 9),
            'irl': lambda: _l(rng, 2) + _d(rng, 7),
        }[cc]
        return f()
    if dtype == 'ResidencePermit':
        if cc == 'usa':
            return rng.choice(['SRC', 'LIN', 'IOE', 'EAC']) + _d(rng, 10)
        if cc == 'fra':
            return _d(rng, 10)
        if cc == 'deu':
            return _l(rng, 1, 'ABCDEFGHJKLMNPRSTUVWXYZ') + _l(rng, 8, 'CFGHJKLMNPRTVWXYZ0123456789')
        return _l(rng, 2) + _d(rng, 7)
    # driving licences
    return None


def uk_licence_number(surname, given, birth, sex, rng):
    s = re.sub('[^A-Z]', '', mrz_translit(surname))[:5].ljust(5, '9')
    m = birth.month + (50 if sex == 'F' else 0)
    ini = re.sub('[^A-Z]', '', mrz_translit(given))[:2].ljust(2, '9')
    return '%s%d%02d%02d%d%s9%s' % (s, (birth.year // 10) % 10, m, birth.day, birth.year % 10,
                                   ini, _l(rng, 2, 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789'))


def dl_number(cc, surname, given, birth, sex, rng, state=None):
    if cc == 'gbr':
        return uk_licence_number(surname, given, birth, sex, rng)
    if cc == 'usa':
        return {'CALIFORNIA': lambda: _l(rng, 1) + _d(rng, 7), 'TEXAS': lambda: _d(rng, 8),
                'NEW YORK': lambda: _d(rng, 9), 'FLORIDA': lambda: _l(rng, 1) + _d(rng, 12),
                'ILLINOIS': lambda: _l(rng, 1) + _d(rng, 11)}.get(state, lambda: _l(rng, 1) + _d(rng, 8))()
    if cc == 'can':
        return _l(rng, 1) + _d(rng, 4) + '-' + _d(rng, 5) + '-' + _d(rng, 5)
    if cc == 'deu':
        return _l(rng, 1) + _d(rng, 3) + _l(rng, 5, 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789') + _d(rng, 2)
    if cc == 'fra':
        return _d(rng, 2) + _l(rng, 2) + _d(rng, 8)
    if cc == 'ind':
        return _l(rng, 2) + _d(rng, 2) + ' ' + _d(rng, 11)
    if cc == 'aus':
        return _d(rng, 8)
    return _l(rng, rng.choice([1, 2])) + _d(rng, rng.choice([6, 7, 8]))


def pesel(birth, sex, rng):
    mo = birth.month + (20 if birth.year >= 2000 else 0)
    s = '%02d%02d%02d%s' % (birth.year % 100, mo, birth.day, _d(rng, 3))
    s += str(rng.choice([1, 3, 5, 7, 9]) if sex == 'M' else rng.choice([0, 2, 4, 6, 8]))
    w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]
    return s + str((10 - sum(int(c) * w[i] for i, c in enumerate(s)) % 10) % 10)


def luhn_digit(s):
    tot = 0
    for i, c in enumerate(s):
        v = int(c) * (2 if i % 2 == 0 else 1)
        tot += v - 9 if v > 9 else v
    return str((10 - tot % 10) % 10)


def personal_number(cc, birth, sex, rng):
    """(MRZ form, printed form) or (None, None)."""
    if cc == 'pol':
        p = pesel(birth, sex, rng)
        return p, p
    if cc == 'swe':
        s = '%02d%02d%02d%s%d' % (birth.year % 100, birth.month, birth.day, _d(rng, 2),
                                 rng.choice([1, 3, 5, 7, 9]) if sex == 'M' else rng.choice([0, 2, 4, 6, 8]))
        s += luhn_digit(s)
        return s, s[:6] + '-' + s[6:]
    if cc == 'nld':
        while True:
            s = _d(rng, 8)
            if s[0] == '0':
                continue
            tot = sum(int(c) * (9 - i) for i, c in enumerate(s))
            last = tot % 11
            if last < 10:
                s += str(last)
                return s, s
    if cc == 'esp':
        n = int(_d(rng, 8))
        s = '%08d%s' % (n, 'TRWAGMYFPDXBNJZSQVHLCKE'[n % 23])
        return s, s
    if cc == 'tur':
        d = [rng.randint(1, 9)] + [rng.randint(0, 9) for _ in range(8)]
        d10 = ((d[0] + d[2] + d[4] + d[6] + d[8]) * 7 - (d[1] + d[3] + d[5] + d[7])) % 10
        d11 = (sum(d) + d10) % 10
        s = ''.join(map(str, d + [d10, d11]))
        return s, s
    if cc == 'bel':
        s = '%02d%02d%02d%03d' % (birth.year % 100, birth.month, birth.day,
                                  rng.randrange(1, 998, 2) if sex == 'M' else rng.randrange(2, 999, 2))
        base = int(('2' if birth.year >= 2000 else '') + s)
        s += '%02d' % (97 - base % 97)
        return s, '%s.%s.%s-%s.%s' % (s[0:2], s[2:4], s[4:6], s[6:9], s[9:11])
    if cc == 'ukr':
        s = birth.strftime('%Y%m%d') + _d(rng, 5)
        return s, s[:8] + '-' + s[8:]
    return None, None


def pick_name(cc, sex, rng):
    sur, male, female, places = NAMES[cc]
    s = rng.choice(sur)
    g = rng.choice(male if sex == 'M' else female)
    if cc == 'pol' and sex == 'F' and re.search('(SKI|CKI|DZKI)$', s):
        s = s[:-1] + 'A'
    if cc in ('esp', 'mex'):  # two surnames
        s2 = rng.choice(sur)
        if s2 != s:
            s = s + ' ' + s2
    if cc in ('prt', 'bra') and rng.random() < 0.6:
        s2 = rng.choice(sur)
        if s2 != s:
            s = s2 + ' ' + s
    if rng.random() < 0.25 and cc not in ('ukr',):
        g2 = rng.choice(male if sex == 'M' else female)
        if g2 != g and '|' not in g2:
            g = g + ' ' + g2
    cyr_s = cyr_g = None
    if '|' in s:
        s, cyr_s = s.split('|')
    if '|' in g:
        g, cyr_g = g.split('|')
    return s, g, cyr_s, cyr_g


def place_of_birth(cc, rng):
    p = rng.choice(NAMES[cc][3])
    return p.replace('&', ', ')


def make_address(cc, rng):
    streets, fmt = STREETS.get(cc, ('MAIN STREET,STATION ROAD,HIGH STREET', '{n} {s}|{c}'))
    city = rng.choice(NAMES[cc][3]).split('&')[0]
    if cc == 'usa':
        city = rng.choice(['SACRAMENTO, CA 95814', 'AUSTIN, TX 78701', 'ALBANY, NY 12207', 'MIAMI, FL 33101',
                           'SPRINGFIELD, IL 62701', 'SEATTLE, WA 98101', 'COLUMBUS, OH 43004', 'DENVER, CO 80202'])
        return fmt.format(n=rng.randint(10, 9999), s=rng.choice(_s(streets)), p=0, c=city).split('|')
    city = re.sub(r'\s+(CAN|[A-Z]{2}|[A-Z]\.[A-Z]\.|[A-Z]{3}\.)$', '', city).split('/')[0]
    return fmt.format(n=rng.randint(1, 180), s=rng.choice(_s(streets)), p=rng.randint(1000, 99999) % (10000 if '04d' in fmt else 100000), c=city).split('|')


def mutate_chars(s, k, rng):
    """Change k characters of s (same class: digit->digit, letter->letter)."""
    idx = [i for i, c in enumerate(s) if c.isalnum()]
    pos = rng.sample(idx, min(k, len(idx)))
    out = list(s)
    for i in pos:
        c = out[i]
        al = DIG if c.isdigit() else LET
        out[i] = rng.choice([x for x in al if x != c])
    return ''.join(out)


# ---------------------------------------------------------------------------
# Document rendering primitives
# ---------------------------------------------------------------------------

def hsv255(h, s, v):
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, max(0, min(1, s)), max(0, min(1, v)))
    return (int(r * 255), int(g * 255), int(b * 255))


def lowfreq(nrng, h, w, cells=5):
    """Smooth value noise in [0,1], shape (h, w), float32."""
    cw = max(2, int(round(cells * w / max(1, h))))
    small = nrng.random((cells, cw)).astype(np.float32)
    im = Image.fromarray(small, 'F').resize((w, h), BICUBIC)
    return np.asarray(im, dtype=np.float32)


class Sheet:
    """A document side drawn in millimetres at ppm pixels per millimetre."""

    def __init__(self, w_mm, h_mm, ppm, bg):
        self.w_mm, self.h_mm, self.ppm = w_mm, h_mm, ppm
        self.img = bg if isinstance(bg, Image.Image) else Image.fromarray(bg)
        self.W, self.H = self.img.size
        self.draw = ImageDraw.Draw(self.img)

    def font(self, path, cap):
        return get_font(path, cap * self.ppm / cap_ratio(path))

    def text(self, x, y, s, path, cap, fill, anchor='ls', max_w=None):
        if not s:
            return 0.0
        path = fallback_font(path, s)
        f = self.font(path, cap)
        if max_w is not None:
            wpx = self.draw.textlength(s, font=f)
            lim = max_w * self.ppm
            if wpx > lim > 0:
                f = get_font(path, f.size * lim / wpx * 0.98)
        self.draw.text((x * self.ppm, y * self.ppm), s, font=f, fill=fill, anchor=anchor)
        return self.draw.textlength(s, font=f) / self.ppm

    def rect(self, x0, y0, x1, y1, fill=None, outline=None, width_mm=0.2, radius_mm=0):
        box = [x0 * self.ppm, y0 * self.ppm, x1 * self.ppm, y1 * self.ppm]
        wd = max(1, int(round(width_mm * self.ppm))) if outline else 0
        if radius_mm > 0:
            self.draw.rounded_rectangle(box, radius=radius_mm * self.ppm, fill=fill, outline=outline, width=wd)
        else:
            self.draw.rectangle(box, fill=fill, outline=outline, width=wd)

    def blend_region(self, x0, y0, x1, y1, color, amount):
        box = tuple(int(round(v * self.ppm)) for v in (x0, y0, x1, y1))
        reg = self.img.crop(box)
        solid = Image.new('RGB', reg.size, color)
        self.img.paste(Image.blend(reg, solid, amount), box[:2])


def security_background(w_mm, h_mm, ppm, rng, nrng, pal, families=None, rosette_at=None):
    """Tinted gradient + guilloche line families (iso-lines of smooth wavy
    functions) as printed behind the data of real documents."""
    w, h = int(round(w_mm * ppm)), int(round(h_mm * ppm))
    xs = (np.arange(w, dtype=np.float32) / ppm)[None, :]
    ys = (np.arange(h, dtype=np.float32) / ppm)[:, None]
    ang = rng.uniform(0, 2 * math.pi)
    t = ((xs - w_mm / 2) * math.cos(ang) + (ys - h_mm / 2) * math.sin(ang)) / (0.5 * math.hypot(w_mm, h_mm))
    t = np.clip(0.5 + 0.5 * t + 0.25 * (lowfreq(nrng, h, w, 4) - 0.5), 0, 1)
    b1 = np.array(pal['base1'], np.float32)
    b2 = np.array(pal['base2'], np.float32)
    img = b1[None, None, :] + (b2 - b1)[None, None, :] * t[..., None]
    nfam = families if families is not None else rng.randint(2, 4)
    for k in range(nfam):
        kind = rng.choice(['wave', 'wave', 'rosette', 'moire'])
        if k == 0 and rosette_at is not None:
            kind = 'rosette'
        period = rng.uniform(0.6, 1.5)
        lw = rng.uniform(0.045, 0.09)
        alpha = rng.uniform(0.25, 0.55)
        col = np.array(pal['line'] if k % 2 == 0 else pal['line2'], np.float32)
        if kind in ('wave', 'moire'):
            th = rng.uniform(0, math.pi)
            u = xs * math.cos(th) + ys * math.sin(th)
            v = -xs * math.sin(th) + ys * math.cos(th)
            a1, a2 = rng.uniform(1.0, 4.0), rng.uniform(0.3, 1.5)
            l1, l2 = rng.uniform(12, 45), rng.uniform(4, 12)
            f = (v / period + a1 * np.sin(u * (2 * math.pi / l1) + rng.uniform(0, 6.3))
                 + a2 * np.sin(u * (2 * math.pi / l2) + v * 0.05 + rng.uniform(0, 6.3)))
            if kind == 'moire':
                f2 = f * rng.uniform(0.93, 0.97) + u * 0.04
                d2 = np.abs(f2 - np.round(f2)) * period
                ink_f2 = np.clip(1 - d2 / lw, 0, 1)
            else:
                ink_f2 = None
        else:
            if rosette_at is not None and k == 0:
                cx, cy = rosette_at
            else:
                cx, cy = rng.uniform(0.2, 0.8) * w_mm, rng.uniform(0.2, 0.8) * h_mm
            dx, dy = xs - cx, ys - cy
            r = np.sqrt(dx * dx + dy * dy)
            th = np.arctan2(dy, dx)
            kk = rng.randint(6, 24)
            amp = rng.uniform(0.8, 3.0)
            f = r / period + amp * (r / (r + 6.0)) * np.sin(kk * th + rng.uniform(0, 6.3)) \
                + 0.6 * np.sin(r * (2 * math.pi / rng.uniform(6, 15)))
            ink_f2 = None
        f -= np.round(f)
        np.abs(f, out=f)
        f *= period / lw
        line = np.clip(1 - f, 0, 1)
        line *= alpha
        if ink_f2 is not None:
            np.maximum(line, ink_f2 * (alpha * 0.8), out=line)
        img += (col[None, None, :] - img) * line[..., None]
    # fine paper/print grain
    img += (nrng.standard_normal((h, w, 1), dtype=np.float32) * 2.0)
    return Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))


def microtext(sh, rng, text, color, x0, y0, x1, y1, cap=None, pitch=None):
    cap = cap or rng.uniform(0.42, 0.6)
    pitch = pitch or rng.uniform(1.4, 2.4)
    f = sh.font(find_font('DejaVuSans-Bold.ttf') or OCRB, cap)
    unit = text + ' \u2022 '
    reps = int((x1 - x0) / max(0.5, sh.draw.textlength(unit, font=f) / sh.ppm)) + 2
    line = unit * reps
    y = y0 + cap
    i = 0
    while y < y1:
        off = (i * 3.7) % 9
        sh.draw.text(((x0 - off) * sh.ppm, y * sh.ppm), line, font=f, fill=color, anchor='ls')
        y += pitch
        i += 1


def silhouette(w, h, rng):
    """Grey head-and-shoulders placeholder portrait."""
    ss = 2
    W, H = w * ss, h * ss
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    xn, yn = xx / W, yy / H
    bgv = rng.uniform(200, 235)
    img = np.full((H, W), bgv, np.float32) - 18 * yn
    cx = 0.5 + rng.uniform(-0.03, 0.03)
    head = ((xn - cx) / 0.21) ** 2 + ((yn - 0.40) / 0.25) ** 2
    neck = (np.abs(xn - cx) < 0.085 + 0.08 * np.clip((yn - 0.62) / 0.2, 0, 1) ** 2) & (yn > 0.55) & (yn < 0.82)
    body = ((xn - cx) / 0.47) ** 2 + ((yn - 1.08) / 0.34) ** 2
    tone = rng.uniform(95, 150)
    shade = tone + 35 * (1 - np.clip(head, 0, 1)) - 20 * (xn - cx)
    img = np.where(head < 1, shade, img)
    img = np.where(neck, tone - 12, img)
    img = np.where(body < 1, tone - 30 + 10 * (1 - body), img)
    im = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8), 'L').resize((w, h), LANCZOS)
    return im.convert('RGB')


def portrait_image(w, h, rng, src=None, mode='color'):
    if src is not None:
        im = ImageOps.fit(src.convert('RGB'), (w, h), method=LANCZOS,
                          centering=(0.5, rng.uniform(0.35, 0.5)))
    else:
        im = silhouette(w, h, rng)
    if mode == 'gray':
        g = ImageOps.autocontrast(ImageOps.grayscale(im), cutoff=1)
        dark = hsv255(rng.uniform(0.55, 0.65), rng.uniform(0, 0.25), rng.uniform(0.08, 0.2))
        light = hsv255(rng.uniform(0.1, 0.6), rng.uniform(0, 0.08), rng.uniform(0.88, 0.97))
        im = ImageOps.colorize(g, dark, light)
    return im


def paste_portrait(sh, x, y, w, h, rng, src, mode='color', fade=False):
    wp, hp = int(round(w * sh.ppm)), int(round(h * sh.ppm))
    im = portrait_image(wp, hp, rng, src, mode)
    if fade:  # soft edges merging into the background
        m = np.ones((hp, wp), np.float32)
        e = max(2, int(0.08 * wp))
        ramp = np.linspace(0, 1, e, dtype=np.float32)
        m[:, :e] *= ramp[None, :]
        m[:, -e:] *= ramp[::-1][None, :]
        m[:e, :] *= ramp[:, None]
        sh.img.paste(im, (int(x * sh.ppm), int(y * sh.ppm)),
                     Image.fromarray((m * 255).astype(np.uint8)))
    else:
        sh.img.paste(im, (int(x * sh.ppm), int(y * sh.ppm)))


def ghost_image(sh, x, y, w, h, rng, src, alpha=None):
    wp, hp = int(round(w * sh.ppm)), int(round(h * sh.ppm))
    im = ImageOps.grayscale(portrait_image(wp, hp, rng, src, 'color'))
    im = ImageOps.autocontrast(im).convert('RGB')
    box = (int(x * sh.ppm), int(y * sh.ppm), int(x * sh.ppm) + wp, int(y * sh.ppm) + hp)
    reg = sh.img.crop(box)
    a = alpha if alpha is not None else rng.uniform(0.18, 0.35)
    sh.img.paste(ImageChops.multiply(reg, Image.blend(Image.new('RGB', reg.size, (255, 255, 255)), im, a)), box[:2])


def _catmull(pts, n=12):
    out = []
    P = [pts[0]] + list(pts) + [pts[-1]]
    for i in range(1, len(P) - 2):
        p0, p1, p2, p3 = P[i - 1], P[i], P[i + 1], P[i + 2]
        for k in range(n):
            t = k / n
            t2, t3 = t * t, t * t * t
            out.append(tuple(0.5 * ((2 * p1[j]) + (-p0[j] + p2[j]) * t + (2 * p0[j] - 5 * p1[j] + 4 * p2[j] - p3[j]) * t2
                                    + (-p0[j] + 3 * p1[j] - 3 * p2[j] + p3[j]) * t3) for j in range(2)))
    out.append(pts[-1])
    return out


def signature(sh, x, y, w, h, rng, color=(20, 30, 90)):
    """Handwritten-looking signature: a few smooth strokes through random
    control points (capital loop, running letters, optional underline)."""
    if w <= 2 or h <= 1:
        return
    color = tuple(min(255, int(c * rng.uniform(0.8, 1.2))) for c in color)
    wd = max(1, int(round(rng.uniform(0.15, 0.28) * sh.ppm)))
    strokes = []
    xs = x + rng.uniform(0, 0.1) * w
    cap_h = h * rng.uniform(0.7, 1.0)
    strokes.append([(xs, y + h * 0.85), (xs + w * 0.04, y + h - cap_h), (xs + w * 0.1, y + h * 0.3),
                    (xs + w * 0.05, y + h * 0.55), (xs + w * 0.14, y + h * 0.65)])
    n = rng.randint(6, 12)
    px = xs + w * 0.14
    pts = [(px, y + h * 0.65)]
    for i in range(n):
        px += w * rng.uniform(0.04, 0.09)
        up = i % 2 == 0
        py = y + h * (rng.uniform(0.3, 0.5) if up else rng.uniform(0.65, 0.8))
        if rng.random() < 0.15:
            py = y + h * rng.uniform(0.0, 0.2)
        pts.append((min(px, x + w), py))
    strokes.append(pts)
    if rng.random() < 0.5:
        strokes.append([(xs + w * 0.05, y + h * 0.92), (xs + w * 0.5, y + h * rng.uniform(0.85, 1.0)),
                        (min(px, x + w), y + h * rng.uniform(0.75, 0.95))])
    for s in strokes:
        pp = [(a * sh.ppm, b * sh.ppm) for a, b in _catmull(s)]
        sh.draw.line(pp, fill=color, width=wd, joint='curve')


def chip(sh, x, y, rng):
    w, h = 11.0, 8.5
    sh.rect(x, y, x + w, y + h, fill=(196, 165, 92), outline=(120, 95, 40), width_mm=0.15, radius_mm=1.3)
    c = (150, 120, 55)
    sh.draw.line([((x + w * 0.5) * sh.ppm, y * sh.ppm), ((x + w * 0.5) * sh.ppm, (y + h) * sh.ppm)], fill=c, width=2)
    for fy in (0.33, 0.66):
        sh.draw.line([(x * sh.ppm, (y + h * fy) * sh.ppm), ((x + w * 0.35) * sh.ppm, (y + h * fy) * sh.ppm)], fill=c, width=2)
        sh.draw.line([((x + w * 0.65) * sh.ppm, (y + h * fy) * sh.ppm), ((x + w) * sh.ppm, (y + h * fy) * sh.ppm)], fill=c, width=2)


def hologram(sh, x, y, w, h, rng):
    """Faint iridescent oval overlay (OVD)."""
    wp, hp = int(w * sh.ppm), int(h * sh.ppm)
    yy, xx = np.mgrid[0:hp, 0:wp].astype(np.float32)
    hue = (xx / max(1, wp) * 1.3 + yy / max(1, hp) * 0.7 + rng.random()) % 1.0
    rgb = np.stack([np.sin(2 * math.pi * (hue + o)) * 0.5 + 0.5 for o in (0, 1 / 3, 2 / 3)], -1) * 255
    e = ((xx - wp / 2) / (wp / 2)) ** 2 + ((yy - hp / 2) / (hp / 2)) ** 2
    a = np.clip(1 - e, 0, 1) ** 0.5 * rng.uniform(0.10, 0.2)
    box = (int(x * sh.ppm), int(y * sh.ppm), int(x * sh.ppm) + wp, int(y * sh.ppm) + hp)
    reg = np.asarray(sh.img.crop(box), np.float32)
    out = reg * (1 - a[..., None]) + rgb * a[..., None]
    sh.img.paste(Image.fromarray(out.astype(np.uint8)), box[:2])


def draw_mrz(sh, lines, x0, y_last, line_pitch, mode, rng, ink):
    """OCR-B MRZ at the ICAO character pitch (2.54 mm) and line pitch.
    mode 'ocrb-a': FreeType rendering; 'ocrb-b': glyphs rendered at low
    resolution, enlarged and thresholded, with bolder/thinner strokes and a
    different glyph width (laser-engraved / low-dpi printer look)."""
    pitch = 2.54
    cap = rng.uniform(2.25, 2.5)
    n = len(lines)
    top = y_last - (n - 1) * line_pitch - cap - 0.8
    bottom = y_last + 1.0
    width = len(lines[0]) * pitch
    ppm = sh.ppm
    bx0, by0 = int((x0 - 1.5) * ppm), int(top * ppm)
    bx1, by1 = int(math.ceil((x0 + width + 1.5) * ppm)), int(math.ceil(bottom * ppm))
    Wb, Hb = bx1 - bx0, by1 - by0
    info = {}
    if mode == 'ocrb-a':
        mask = Image.new('L', (Wb, Hb), 0)
        d = ImageDraw.Draw(mask)
        f = get_font(OCRB, cap * ppm / cap_ratio(OCRB))
        for li, line in enumerate(lines):
            yb = (y_last - (n - 1 - li) * line_pitch) * ppm - by0
            for ci, ch in enumerate(line):
                xc = (x0 + (ci + 0.5) * pitch) * ppm - bx0
                d.text((xc, yb), ch, font=f, fill=255, anchor='ms')
        info['render'] = 'freetype'
    else:
        k = rng.uniform(0.28, 0.45)
        wx = rng.uniform(0.88, 1.07)
        Wl, Hl = max(8, int(round(Wb * k / wx))), max(8, int(round(Hb * k)))
        lo = Image.new('L', (Wl, Hl), 0)
        d = ImageDraw.Draw(lo)
        f = get_font(OCRB, cap * ppm * k / cap_ratio(OCRB))
        jit = rng.uniform(0, 0.5)
        for li, line in enumerate(lines):
            yb = ((y_last - (n - 1 - li) * line_pitch) * ppm - by0) * k
            for ci, ch in enumerate(line):
                xc = ((x0 + (ci + 0.5) * pitch) * ppm - bx0) * k / wx
                d.text((xc, yb + rng.uniform(-jit, jit)), ch, font=f, fill=255, anchor='ms')
        big = lo.resize((Wb, Hb), BICUBIC)
        arr = np.asarray(big, np.float32) / 255.0
        thr = rng.uniform(0.32, 0.6)
        soft = rng.uniform(0.05, 0.14)
        arr = np.clip((arr - thr) / soft + 0.5, 0, 1)
        mask = Image.fromarray((arr * 255).astype(np.uint8))
        r = rng.random()
        morph = 'none'
        if r < 0.3:
            mask = mask.filter(ImageFilter.MaxFilter(3))
            morph = 'dilate'
        elif r < 0.5:
            mask = mask.filter(ImageFilter.MinFilter(3))
            morph = 'erode'
        info.update(render='lowres-threshold', lowres=round(k, 2), width=round(wx, 2),
                    threshold=round(thr, 2), morph=morph)
    solid = Image.new('RGB', (Wb, Hb), ink)
    sh.img.paste(solid, (bx0, by0), mask)
    info['box_mm'] = [round(x0, 2), round(y_last - (n - 1) * line_pitch - cap, 2),
                      round(x0 + width, 2), round(y_last + 0.5, 2)]
    info['cap_mm'] = round(cap, 2)
    info['line_pitch_mm'] = round(line_pitch, 2)
    return info


# ---------------------------------------------------------------------------
# Styles and field blocks
# ---------------------------------------------------------------------------

TYPE_HUE = {'Passport': 0.0, 'IdCard': 0.3, 'ResidencePermit': 0.52, 'DriverLicense': 0.9}


def make_style(cc, dtype, rng, arrangement, langs):
    h = ((sum(ord(c) * (i + 3) for i, c in enumerate(cc)) * 0.618) + TYPE_HUE[dtype]) % 1.0
    h = (h + rng.uniform(-0.03, 0.03)) % 1.0
    if dtype == 'DriverLicense' and cc in EU_DL:
        h = rng.uniform(0.92, 1.02)  # the EU model is pink
    pal = dict(
        base1=hsv255(h, rng.uniform(0.04, 0.13), rng.uniform(0.93, 0.985)),
        base2=hsv255(h + rng.uniform(-0.12, 0.12), rng.uniform(0.06, 0.2), rng.uniform(0.89, 0.97)),
        line=hsv255(h + rng.uniform(-0.06, 0.06), rng.uniform(0.25, 0.5), rng.uniform(0.62, 0.82)),
        line2=hsv255(h + rng.uniform(0.25, 0.6), rng.uniform(0.2, 0.45), rng.uniform(0.62, 0.85)),
        title=hsv255(h + rng.uniform(-0.05, 0.05), rng.uniform(0.5, 0.85), rng.uniform(0.28, 0.5)),
        label=hsv255(h, rng.uniform(0.2, 0.6), rng.uniform(0.22, 0.42)) if rng.random() < 0.7
        else (60, 60, 65),
        value=tuple(int(rng.uniform(8, 40)) for _ in range(3)),
        micro=hsv255(h, rng.uniform(0.1, 0.25), rng.uniform(0.8, 0.9)),
        ink=tuple(int(rng.uniform(10, 38)) for _ in range(3)),
    )
    st = dict(
        pal=pal, arr=arrangement, langs=langs,
        val_font=rng.choice(font_list(VALUE_FONT_NAMES)),
        lab_font=rng.choice(font_list(LABEL_FONT_NAMES)),
        title_font=rng.choice(font_list(TITLE_FONT_NAMES)),
        upper_labels=rng.random() < 0.3,
        lab_sep=rng.choice([' / ', '/', ' / ', ' - ']),
    )
    return st


def label_text(st, key, numbered=None):
    parts = []
    for lg in st['langs']:
        t = LABELS[lg][key]
        if t not in parts:
            parts.append(t)
    if st['upper_labels']:
        parts = [p.upper() for p in parts]
    txt = st['lab_sep'].join(parts)
    if numbered is not None:
        txt = '%s. %s' % (numbered, txt)
    return txt, parts


FIELD_NUMBERS = {  # EU model numbering (1 surname ... 5 number), then the rest
    'surname': '1', 'given': '2', 'birth': '3', 'issue': '4a', 'expiry': '4b', 'authority': '4c',
    'personal': '4d', 'pno': '5', 'docno': '5', 'sex': '6', 'nationality': '7', 'place': '8',
    'address': '9', 'type': '10', 'code': '11', 'ptype': '12', 'remarks': '13', 'height': '14',
    'eyes': '15', 'signature': '16'}


def draw_fields(sh, st, rows, x0, x1, y0, y1, lab_cap, val_cap, gap, rng):
    """rows: list of rows, each a list of (key, value, weight).  Labels above
    values ('above', 'numbered') or left of them ('left')."""
    pal = st['pal']
    n = len(rows)
    pitch = (y1 - y0) / max(1, n)
    arr = st['arr']
    if arr in ('above', 'numbered'):
        need = lab_cap + gap + val_cap
        s = min(1.0, pitch * 0.9 / need)
        lc, vc, gp = lab_cap * s, val_cap * s, gap * s
        for i, row in enumerate(rows):
            ytop = y0 + i * pitch
            tot = sum(r[2] for r in row)
            x = x0
            for key, val, wgt in row:
                cw = (x1 - x0) * wgt / tot
                lab, _ = label_text(st, key, FIELD_NUMBERS.get(key) if arr == 'numbered' else None)
                sh.text(x, ytop + lc, lab, st['lab_font'], lc, pal['label'], max_w=cw - 0.8)
                if key == 'signature':
                    signature(sh, x, ytop + lc + 0.3, min(cw - 1, 28), pitch - lc - 0.3, rng)
                elif isinstance(val, (list, tuple)):
                    for j, vl in enumerate(val):
                        sh.text(x, ytop + lc + gp + vc + j * vc * 1.3, vl, st['val_font'], vc, pal['value'], max_w=cw - 1.0)
                else:
                    sh.text(x, ytop + lc + gp + vc, val, st['val_font'], vc, pal['value'], max_w=cw - 1.0)
                x += cw
    else:  # 'left'
        lw_frac = rng.uniform(0.3, 0.4)
        vc = min(val_cap, pitch * 0.55)
        lc = min(lab_cap, vc * 0.7)
        for i, row in enumerate(rows):
            yb = y0 + i * pitch + pitch * 0.5 + vc * 0.5
            tot = sum(r[2] for r in row)
            x = x0
            for key, val, wgt in row:
                cw = (x1 - x0) * wgt / tot
                lw = (x1 - x0) * lw_frac if len(row) == 1 else cw * 0.45
                lab, parts = label_text(st, key)
                if len(parts) > 1 and pitch > 2.4 * lc:
                    sh.text(x, yb - lc * 1.35, parts[0] + st['lab_sep'].rstrip(), st['lab_font'], lc, pal['label'], max_w=lw - 0.8)
                    sh.text(x, yb, st['lab_sep'].join(parts[1:]), st['lab_font'], lc * 0.9, pal['label'], max_w=lw - 0.8)
                else:
                    sh.text(x, yb, lab, st['lab_font'], lc, pal['label'], max_w=lw - 0.8)
                if key == 'signature':
                    signature(sh, x + lw, yb - pitch * 0.8, min(cw - lw - 1, 25), pitch, rng)
                elif isinstance(val, (list, tuple)):
                    for j, vl in enumerate(val):
                        sh.text(x + lw, yb + j * vc * 1.3, vl, st['val_font'], vc, pal['value'], max_w=cw - lw - 0.8)
                else:
                    sh.text(x + lw, yb, val, st['val_font'], vc, pal['value'], max_w=cw - lw - 0.8)
                x += cw


def header(sh, st, cc, title_key, x0, x1, y_country, y_title, cap_c, cap_t, centre):
    pal = st['pal']
    en, local = COUNTRY_NAME[cc]
    cname = local + ' / ' + en if (local and rng_bool(st, 'both_names')) else (local or en)
    tparts = []
    for lg in st['langs']:
        t = LABELS[lg][title_key]
        if t not in tparts:
            tparts.append(t)
    title = st.get('title') or ' / '.join(tparts[:3])
    if centre:
        xc = (x0 + x1) / 2
        sh.text(xc, y_country, cname, st['title_font'], cap_c, pal['title'], anchor='ms', max_w=x1 - x0)
        sh.text(xc, y_title, title, st['title_font'], cap_t, pal['title'], anchor='ms', max_w=x1 - x0)
    else:
        sh.text(x0, y_country, cname, st['title_font'], cap_c, pal['title'], max_w=x1 - x0)
        sh.text(x0, y_title, title, st['title_font'], cap_t, pal['title'], max_w=x1 - x0)


def rng_bool(st, key):
    return st.get(key, False)


def rounded_alpha(img, radius_px, pad):
    """RGBA with rounded corners and a transparent pad (edge colour kept so
    bicubic resampling does not drag black into the edges)."""
    w, h = img.size
    W, H = w + 2 * pad, h + 2 * pad
    out = Image.new('RGB', (W, H))
    out.paste(img, (pad, pad))
    # extend edge colours into the pad
    out.paste(img.crop((0, 0, w, 1)).resize((w, pad)), (pad, 0))
    out.paste(img.crop((0, h - 1, w, h)).resize((w, pad)), (pad, pad + h))
    out.paste(out.crop((pad, 0, pad + 1, H)).resize((pad, H)), (0, 0))
    out.paste(out.crop((pad + w - 1, 0, pad + w, H)).resize((pad, H)), (pad + w, 0))
    yy = np.arange(H, dtype=np.float32)[:, None]
    xx = np.arange(w + 2 * pad, dtype=np.float32)[None, :]
    r = float(radius_px)
    # distance outside the rounded rectangle [pad, pad+w) x [pad, pad+h)
    dx = np.maximum(np.maximum(pad + r - xx, xx - (pad + w - r)), 0)
    dy = np.maximum(np.maximum(pad + r - yy, yy - (pad + h - r)), 0)
    dist = np.sqrt(dx * dx + dy * dy) - r
    m = Image.fromarray((np.clip(0.5 - dist, 0, 1) * 255).astype(np.uint8))
    out.putalpha(m)
    return out


# ---------------------------------------------------------------------------
# Layouts
# ---------------------------------------------------------------------------

def td3_rows(P, rng, arr):
    rows = [[('type', P['type'], 0.2), ('code', P['code'], 0.28), ('pno', P['number'], 0.52)],
            [('surname', P['surname'], 1)], [('given', P['given'], 1)]]
    nat = [('nationality', P['nationality'], 1)]
    if P.get('personal'):
        nat.append(('personal', P['personal'], 0.8))
    rows.append(nat)
    if rng.random() < 0.5 or arr == 'left':
        rows.append([('birth', P['birth'], 0.62), ('sex', P['sex'], 0.38)])
        rows.append([('place', P['place'], 1)])
    else:
        rows.append([('birth', P['birth'], 0.42), ('sex', P['sex'], 0.16), ('place', P['place'], 0.42)])
    rows.append([('issue', P['issue'], 0.45), ('authority', P['authority'], 0.55)])
    if rng.random() < 0.5:
        rows.append([('expiry', P['expiry'], 0.45), ('signature', '', 0.55)])
    else:
        rows.append([('expiry', P['expiry'], 1)])
    return rows


def render_passport(doc, rng, nrng, portrait_src):
    st = doc['style']
    pal = st['pal']
    P = doc['ptext']
    ppm = rng.uniform(12, 16)
    Wm, Hm = 125.0, 88.0
    rosette = (rng.uniform(60, 110), rng.uniform(20, 50))
    sh = Sheet(Wm, Hm, ppm, security_background(Wm, Hm, ppm, rng, nrng, pal, rosette_at=rosette))
    zone_top = Hm - rng.uniform(20.5, 23.5)
    sh.blend_region(0, zone_top, Wm, Hm, (250, 250, 248), rng.uniform(0.45, 0.85))
    if rng.random() < 0.7:
        microtext(sh, rng, (COUNTRY_NAME[doc['country']][1] or COUNTRY_NAME[doc['country']][0]).replace(' ', ''),
                  pal['micro'], 0, 12, Wm, zone_top - 1)
    centre = rng.random() < 0.5
    st['both_names'] = rng.random() < 0.4
    num_top = rng.random() < 0.5
    header(sh, st, doc['country'], 'passport', 4 if centre else rng.uniform(42, 48), Wm - (32 if num_top else 4),
           rng.uniform(4.5, 6), rng.uniform(9.5, 11), rng.uniform(1.9, 2.6), rng.uniform(1.7, 2.3), centre)
    px, py = rng.uniform(4.5, 7.5), rng.uniform(13.5, 17)
    pw = rng.uniform(30, 35)
    ph = min(pw * rng.uniform(1.25, 1.33), zone_top - 2 - py)
    pw = min(pw, ph / 1.22)
    paste_portrait(sh, px, py, pw, ph, rng, portrait_src, 'gray' if rng.random() < 0.25 else 'color',
                   fade=rng.random() < 0.3)
    x0 = px + pw + rng.uniform(3.5, 6)
    x1 = Wm - rng.uniform(4, 7)
    if rng.random() < 0.5:  # ghost image at the right edge
        gw = rng.uniform(15, 20)
        ghost_image(sh, Wm - gw - rng.uniform(2, 5), zone_top - gw * 1.3 - rng.uniform(1, 6), gw, gw * 1.28, rng, portrait_src)
    if rng.random() < 0.5:
        hologram(sh, px + pw * 0.4, py + ph * 0.5, rng.uniform(25, 40), rng.uniform(18, 28), rng)
    if num_top:  # number repeated top right (often red / perforated)
        sh.text(Wm - 4, rng.uniform(5, 7), P['number'], st['title_font'], rng.uniform(2.2, 3.0),
                hsv255(rng.uniform(0.97, 1.02), 0.8, 0.6), anchor='rs', max_w=26)
    y0 = rng.uniform(13, 16)
    y1 = zone_top - rng.uniform(1.0, 2.5)
    draw_fields(sh, st, td3_rows(P, rng, st['arr']), x0, x1, y0, y1,
                rng.uniform(1.15, 1.5), rng.uniform(2.3, 2.9), rng.uniform(0.5, 0.9), rng)
    line_pitch = rng.uniform(4.2, 4.9)
    xm = (Wm - 44 * 2.54) / 2 + rng.uniform(-1.2, 1.2)
    mi = draw_mrz(sh, doc['mrz'], xm, Hm - rng.uniform(4.8, 6.5), line_pitch, doc['font'], rng, pal['ink'])
    page = sh.img
    meta = dict(ppm=ppm, w_mm=Wm, h_mm=Hm, mrz=mi, kind='page', spine_y=-Hm / 2)
    if doc.get('booklet'):
        page, meta = make_booklet(page, meta, doc, rng, nrng)
    img = rounded_alpha(page, int(rng.uniform(2.0, 4.0) * ppm), PAD)
    meta['pad'] = PAD
    return img, meta


PAD = 6


def make_booklet(page, meta, doc, rng, nrng):
    """Open passport: upper page (previous page) + data page below, both on
    the cover, with a shaded spine between them."""
    ppm = meta['ppm']
    c = rng.uniform(1.0, 2.5)
    gap = 0.4
    Wm = meta['w_mm'] + 2 * c
    Hm = 2 * meta['h_mm'] + 2 * c + gap
    W, H = int(round(Wm * ppm)), int(round(Hm * ppm))
    cover = hsv255(rng.choice([0.98, 0.0, 0.62, 0.35, 0.0]), rng.uniform(0.4, 0.85), rng.uniform(0.12, 0.4))
    if rng.random() < 0.15:
        cover = (25, 25, 28)
    book = Image.new('RGB', (W, H), cover)
    st = doc['style']
    pal2 = dict(st['pal'])
    up = Sheet(meta['w_mm'], meta['h_mm'], ppm,
               security_background(meta['w_mm'], meta['h_mm'], ppm, rng, nrng, pal2, families=2))
    tf = st['title_font']
    if rng.random() < 0.6:
        lab = ' / '.join(LABELS[lg]['remarks'].upper() for lg in st['langs'][:2])
        up.text(meta['w_mm'] / 2, 12, lab, tf, 2.0, pal2['title'], anchor='ms', max_w=110)
        for i in range(rng.randint(2, 6)):
            up.draw.line([(15 * ppm, (22 + i * 8) * ppm), (110 * ppm, (22 + i * 8) * ppm)], fill=pal2['line'], width=1)
    else:
        microtext(up, rng, COUNTRY_NAME[doc['country']][0].replace(' ', ''), pal2['micro'], 0, 0, 125, 88,
                  pitch=rng.uniform(2.5, 4))
        up.text(meta['w_mm'] / 2, 44, COUNTRY_NAME[doc['country']][0], tf, 3.0, pal2['line'], anchor='ms', max_w=110)
    ox = int(round(c * ppm))
    book.paste(up.img, (ox, ox))
    dy = int(round((c + meta['h_mm'] + gap) * ppm))
    book.paste(page, (ox, dy))
    # spine shading
    arr = np.asarray(book, np.float32)
    ys = np.arange(H, dtype=np.float32) / ppm
    spine = c + meta['h_mm'] + gap / 2
    sd = np.abs(ys - spine)
    shade = 1 - rng.uniform(0.15, 0.35) * np.exp(-sd / rng.uniform(2.0, 5.0))
    arr *= shade[:, None, None]
    book = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    mi = dict(meta['mrz'])
    b = mi['box_mm']
    off_y = c + meta['h_mm'] + gap
    mi['box_mm'] = [b[0] + c, b[1] + off_y, b[2] + c, b[3] + off_y]
    meta = dict(meta, w_mm=Wm, h_mm=Hm, mrz=mi, kind='booklet', spine_y=spine - Hm / 2)
    return book, meta


def card_front_rows(doc, P, rng, arr):
    dtype = doc['dtype']
    if dtype == 'ResidencePermit':
        rows = [[('surname', P['surname'], 1)], [('given', P['given'], 1)],
                [('ptype', P['ptype'], 1)],
                [('expiry', P['expiry'], 0.5), ('remarks', P['remarks'], 0.5)],
                [('nationality', P['nationality'], 0.3), ('sex', P['sex'], 0.2), ('birth', P['birth'], 0.5)]]
        if rng.random() < 0.5:
            rows.insert(0, [('docno', P['number'], 1)])
        return rows, 'docno' not in [r[0][0] for r in rows]
    rows = [[('surname', P['surname'], 1)], [('given', P['given'], 1)]]
    r = rng.random()
    if r < 0.4:
        rows.append([('birth', P['birth'], 0.55), ('sex', P['sex'], 0.45)])
        rows.append([('nationality', P['nationality'], 0.55), ('place', P['place'], 0.45)])
    else:
        rows.append([('sex', P['sex'], 0.3), ('nationality', P['nationality'], 0.7)])
        rows.append([('birth', P['birth'], 1)])
    number_on_top = rng.random() < 0.45
    last = [('expiry', P['expiry'], 0.5)]
    if not number_on_top:
        last.insert(0, ('docno', P['number'], 0.5))
    rows.append(last)
    return rows, number_on_top


def render_card_front(doc, rng, nrng, portrait_src):
    """ID card / residence permit front (TD1 85.6x54; TD2 105x74 with MRZ)."""
    st = doc['style']
    pal = st['pal']
    P = doc['ptext']
    td2 = doc['fmt'] == 'TD2'
    Wm, Hm = (105.0, 74.0) if td2 else (85.6, 53.98)
    ppm = rng.uniform(12.5, 16) if td2 else rng.uniform(12.5, 16)
    sh = Sheet(Wm, Hm, ppm, security_background(Wm, Hm, ppm, rng, nrng, pal,
                                                rosette_at=(rng.uniform(45, 75), rng.uniform(15, 40))))
    zone_top = Hm - (rng.uniform(17, 19.5) if td2 else 0)
    if td2:
        sh.blend_region(0, zone_top, Wm, Hm, (248, 248, 246), rng.uniform(0.4, 0.8))
    if rng.random() < 0.6:
        microtext(sh, rng, doc['country'].upper() + (COUNTRY_NAME[doc['country']][1] or '').replace(' ', ''),
                  pal['micro'], 0, 0, Wm, rng.uniform(8, 14))
    title_key = {'IdCard': 'idcard', 'ResidencePermit': 'rp'}[doc['dtype']]
    st['both_names'] = False
    rows, number_on_top = card_front_rows(doc, P, rng, st['arr'])
    # variant: contact chip on the left and the photo on the right (eID style)
    chip_left = (not td2) and rng.random() < 0.25
    centre = rng.random() < 0.4
    hx1 = Wm - (26 if number_on_top else (3 if centre else 14))
    header(sh, st, doc['country'], title_key, 3 if centre else rng.uniform(3, 20), hx1,
           rng.uniform(3.6, 4.6), rng.uniform(6.8, 8.2), rng.uniform(1.5, 2.0), rng.uniform(1.25, 1.6), centre)
    if number_on_top:
        sh.text(Wm - 3, rng.uniform(3.6, 4.6), P['number'], st['val_font'], rng.uniform(1.8, 2.3),
                pal['value'] if rng.random() < 0.6 else hsv255(0.99, 0.8, 0.6), anchor='rs', max_w=21)
    py = rng.uniform(9.5, 12)
    pw = rng.uniform(22, 27) if not td2 else rng.uniform(28, 34)
    if chip_left:
        pw = rng.uniform(21, 24)
    ph = min(pw * rng.uniform(1.25, 1.32), (zone_top if td2 else Hm) - py - (2.0 if td2 else 4.5))
    pw = min(pw, ph / 1.2)
    px = (Wm - pw - rng.uniform(2.5, 4)) if chip_left else rng.uniform(2.5, 4.5)
    paste_portrait(sh, px, py, pw, ph, rng, portrait_src, 'gray' if rng.random() < 0.5 else 'color',
                   fade=rng.random() < 0.25)
    if rng.random() < 0.6:
        hologram(sh, px + pw * 0.5, py + ph * 0.55, rng.uniform(16, 24), rng.uniform(12, 18), rng)
    if chip_left:
        cx_ = rng.uniform(3, 5)
        chip(sh, cx_, rng.uniform(17, 24), rng)
        x0 = cx_ + 11 + rng.uniform(2.5, 4)
        x1 = px - rng.uniform(1.5, 3)
    else:
        x0 = px + pw + rng.uniform(2.5, 4)
        x1 = Wm - rng.uniform(2.5, 4)
    y0 = rng.uniform(9.0, 11.0)
    bottom_space = rng.uniform(5.5, 8.5) if not td2 else 1.5
    y1 = (zone_top if td2 else Hm) - bottom_space
    if rng.random() < 0.45 and not td2 and not chip_left:
        gw = rng.uniform(9, 12)
        ghost_image(sh, Wm - gw - 2.5, Hm - gw * 1.3 - 1.5, gw, gw * 1.28, rng, portrait_src)
        x1 = min(x1, Wm - gw - 3)
    draw_fields(sh, st, rows, x0, x1, y0, y1, rng.uniform(0.95, 1.2), rng.uniform(1.8, 2.3),
                rng.uniform(0.35, 0.6), rng)
    if not td2:
        if rng.random() < 0.7:
            signature(sh, x0, Hm - bottom_space + 0.3, rng.uniform(16, 26), bottom_space - 1.5, rng)
        if doc['country'] == 'deu' and rng.random() < 0.8:  # card access number
            sh.text(Wm - 3, Hm - 2.2, P.get('can', '') or _d(rng, 6), st['val_font'], 1.8, pal['value'], anchor='rs')
    meta = dict(ppm=ppm, w_mm=Wm, h_mm=Hm, mrz=None, kind='card', spine_y=None)
    if td2:
        mi = draw_mrz(sh, doc['mrz'], (Wm - 36 * 2.54) / 2 + rng.uniform(-1, 1), Hm - rng.uniform(4.5, 6),
                      rng.uniform(4.2, 4.8), doc['font'], rng, pal['ink'])
        meta['mrz'] = mi
    img = rounded_alpha(sh.img, int(3.18 * ppm), PAD)
    meta['pad'] = PAD
    return img, meta


def render_card_back(doc, rng, nrng, portrait_src):
    st = doc['style']
    pal = dict(st['pal'])
    P = doc['ptext']
    td2 = doc['fmt'] == 'TD2'
    Wm, Hm = (105.0, 74.0) if td2 else (85.6, 53.98)
    ppm = rng.uniform(12.5, 16) if not td2 else rng.uniform(12.5, 16)
    sh = Sheet(Wm, Hm, ppm, security_background(Wm, Hm, ppm, rng, nrng, pal, families=rng.randint(1, 3)))
    zone_top = Hm - rng.uniform(16.5, 19) if not td2 else Hm
    if not td2:
        sh.blend_region(0, zone_top, Wm, Hm, (250, 250, 248), rng.uniform(0.3, 0.85))
    rows = []
    if P.get('address'):
        rows.append([('address', P['address'], 1)])
    if doc['dtype'] == 'ResidencePermit':
        rows.append([('place', P['place'], 0.5), ('issue', P['issue'], 0.5)])
        rows.append([('remarks', P['remarks2'], 1)])
    else:
        rows.append([('issue', P['issue'], 0.5), ('authority', P['authority'], 0.5)])
        r2 = [('height', P['height'], 0.3), ('eyes', P['eyes'], 0.35)]
        if P.get('personal'):
            r2.append(('personal', P['personal'], 0.5))
        rows.append(r2)
    if doc['dtype'] == 'ResidencePermit':
        rows.append([('authority', P['authority'], 1)])
    x0 = rng.uniform(3, 5)
    x1 = Wm - rng.uniform(3, 5) - (rng.uniform(10, 18) if rng.random() < 0.5 else 0)
    if x1 < Wm - 10:  # small emblem/ghost on the right
        ghost_image(sh, x1 + 1.5, 3.5, Wm - x1 - 4, (Wm - x1 - 4) * 1.28, rng, portrait_src)
    draw_fields(sh, st, rows, x0, x1, rng.uniform(2.5, 4), zone_top - rng.uniform(1.5, 3),
                rng.uniform(0.95, 1.2), rng.uniform(1.7, 2.2), rng.uniform(0.3, 0.55),
                rng)
    meta = dict(ppm=ppm, w_mm=Wm, h_mm=Hm, mrz=None, kind='card', spine_y=None)
    if not td2:
        lp = rng.uniform(4.1, 4.6)
        mi = draw_mrz(sh, doc['mrz'], (Wm - 30 * 2.54) / 2 + rng.uniform(-0.8, 0.8), Hm - rng.uniform(3.0, 4.2),
                      lp, doc['font'], rng, pal['ink'])
        meta['mrz'] = mi
    img = rounded_alpha(sh.img, int(3.18 * ppm), PAD)
    meta['pad'] = PAD
    return img, meta


def eu_flag(sh, x, y, code, rng):
    w, h = 11.0, 8.0
    sh.rect(x, y, x + w, y + h, fill=(0, 51, 153))
    cx, cy, r = x + w / 2, y + h * 0.42, 2.6
    for i in range(12):
        a = 2 * math.pi * i / 12
        sx, sy = cx + r * math.cos(a), cy + r * math.sin(a)
        sh.draw.ellipse([(sx - 0.35) * sh.ppm, (sy - 0.35) * sh.ppm, (sx + 0.35) * sh.ppm, (sy + 0.35) * sh.ppm],
                        fill=(255, 204, 0))
    sh.text(cx, y + h - 0.6, code, find_font('DejaVuSans-Bold.ttf'), 1.7 if len(code) < 3 else 1.4,
            (255, 255, 255), anchor='ms')


def render_dl_front(doc, rng, nrng, portrait_src):
    st = doc['style']
    pal = st['pal']
    P = doc['ptext']
    cc = doc['country']
    Wm, Hm = 85.6, 53.98
    ppm = rng.uniform(12.5, 16)
    sh = Sheet(Wm, Hm, ppm, security_background(Wm, Hm, ppm, rng, nrng, pal))
    lay = doc['layout']
    vf, lf = st['val_font'], st['lab_font']
    if lay == 'dl-eu-numbered':
        eu_flag(sh, 2.5, 2.5, EU_DL_CODE.get(cc, cc.upper()), rng)
        tparts = []
        for lg in st['langs'][:2]:
            if LABELS[lg]['dl'] not in tparts:
                tparts.append(LABELS[lg]['dl'])
        sh.text(16, 5.6, tparts[0], st['title_font'], 2.4, pal['title'], max_w=Wm - 19)
        sh.text(16, 9.2, (COUNTRY_NAME[cc][1] or COUNTRY_NAME[cc][0]), st['title_font'], 1.4, pal['title'], max_w=Wm - 19)
        px, py, pw = 3.0, 12.5, rng.uniform(21, 24)
        ph = min(pw * 1.29, Hm - py - 3.5)
        paste_portrait(sh, px, py, pw, ph, rng, portrait_src, 'gray' if rng.random() < 0.5 else 'color')
        x = px + pw + 3
        items = [('1.', P['surname']), ('2.', P['given']), ('3.', P['birth'] + ' ' + P['place']),
                 ('4a.', P['issue'] + '   4c. ' + P['authority']), ('4b.', P['expiry']),
                 ('5.', P['number'])]
        if P.get('personal') and rng.random() < 0.5:
            items.insert(5, ('4d.', P['personal']))
        items.append(('7.', None))
        items.append(('9.', P['categories']))
        pitch = (Hm - 12.0 - 2.5) / len(items)
        vc = min(2.1, pitch * 0.6)
        for i, (num, val) in enumerate(items):
            yb = 12.0 + (i + 0.75) * pitch
            sh.text(x, yb, num, lf, vc * 0.75, pal['label'])
            if val is None:
                signature(sh, x + 5, yb - pitch * 0.9, 22, pitch * 1.1, rng)
            else:
                sh.text(x + 5, yb, val, vf, vc, pal['value'], max_w=Wm - x - 7)
    elif lay == 'dl-us':
        state = doc['state']
        band = hsv255(rng.random(), rng.uniform(0.4, 0.8), rng.uniform(0.35, 0.6))
        sh.rect(0, 0, Wm, 9, fill=band)
        sh.text(3, 6.5, state, st['title_font'], 3.2, (255, 255, 255), max_w=45)
        sh.text(Wm - 3, 4.2, 'USA' if cc == 'usa' else 'CANADA', st['title_font'], 1.6, (255, 255, 255), anchor='rs')
        sh.text(Wm - 3, 7.4, 'DRIVER LICENSE' if cc == 'usa' else "DRIVER'S LICENCE / PERMIS DE CONDUIRE",
                st['title_font'], 1.5, (255, 255, 255), anchor='rs', max_w=38)
        px, py, pw = 3.0, 11.5, rng.uniform(21, 24)
        ph = min(pw * 1.28, Hm - py - 8.5)
        pw = min(pw, ph / 1.22)
        paste_portrait(sh, px, py, pw, ph, rng, portrait_src, 'color')
        x = px + pw + 3
        red = hsv255(0.99, 0.85, 0.65)
        aamva = rng.random() < 0.6
        lab = (lambda n, t: n + ' ' + t) if aamva else (lambda n, t: t)
        rows = [(lab('4d', 'DLN' if cc == 'usa' else 'DL/PC'), P['number'], red, 2.3),
                (lab('4b', 'EXP'), P['expiry'], red, 2.0),
                (lab('1', 'LN'), P['surname'], pal['value'], 2.1),
                (lab('2', 'FN'), P['given'], pal['value'], 2.1),
                (lab('8', ''), P['address'][0], pal['value'], 1.5),
                ('', P['address'][1], pal['value'], 1.5),
                (lab('3', 'DOB'), P['birth'], red, 2.0),
                (lab('9', 'CLASS'), 'C   ' + lab('15', 'SEX') + ' ' + P['sex'] + '   ' + lab('16', 'HGT') + ' ' + P['height'], pal['value'], 1.5),
                (lab('4a', 'ISS'), P['issue'] + '   ' + lab('18', 'EYES') + ' ' + P['eyes'], pal['value'], 1.5)]
        y = 12.0
        avail = Hm - 12 - 2.5
        pitch = avail / len(rows)
        for l_, v, col, cap in rows:
            cap = min(cap, pitch * 0.72)
            yb = y + pitch * 0.8
            w = sh.text(x, yb, l_, lf, cap * 0.6, pal['label']) if l_ else 0
            sh.text(x + max(w + 1.0, 0), yb, v, vf, cap, col, max_w=Wm - x - max(w + 1, 0) - 12)
            y += pitch
        ghost_image(sh, Wm - 12, 11.5, 9.5, 12.5, rng, portrait_src, alpha=0.35)
        signature(sh, px, Hm - 7.5, pw, 5.5, rng, (10, 10, 10))
    else:  # dl-label-left (generic)
        sh.text(Wm / 2, 4.8, COUNTRY_NAME[cc][0], st['title_font'], 1.9, pal['title'], anchor='ms', max_w=Wm - 6)
        sh.text(Wm / 2, 8.3, 'DRIVING LICENCE' if cc != 'bra' else 'CARTEIRA NACIONAL DE HABILITAÇÃO / DRIVING LICENCE',
                st['title_font'], 1.7, pal['title'], anchor='ms', max_w=Wm - 6)
        px, py, pw = 3.0, 11.0, rng.uniform(21, 24)
        ph = min(pw * 1.28, Hm - py - 3)
        paste_portrait(sh, px, py, pw, ph, rng, portrait_src, 'color' if rng.random() < 0.6 else 'gray')
        st2 = dict(st, arr='left', langs=['en'])
        rows = [[('surname', P['surname'], 1)], [('given', P['given'], 1)],
                [('birth', P['birth'], 1)], [('docno', P['number'], 1)],
                [('issue', P['issue'], 1)], [('expiry', P['expiry'], 1)],
                [('address', P['address'][0] + ', ' + P['address'][1], 1)]]
        draw_fields(sh, st2, rows, px + pw + 2.5, Wm - 3, 10.5, Hm - 2.5, 1.2, 2.0, 0.3, rng)
    img = rounded_alpha(sh.img, int(3.18 * ppm), PAD)
    return img, dict(ppm=ppm, w_mm=Wm, h_mm=Hm, mrz=None, kind='card', spine_y=None, pad=PAD)


def render_dl_back(doc, rng, nrng, portrait_src):
    st = doc['style']
    pal = dict(st['pal'])
    P = doc['ptext']
    Wm, Hm = 85.6, 53.98
    ppm = rng.uniform(12.5, 16)
    sh = Sheet(Wm, Hm, ppm, security_background(Wm, Hm, ppm, rng, nrng, pal, families=rng.randint(1, 2)))
    lay = doc['layout']
    lf, vf = st['lab_font'], st['val_font']
    if lay == 'dl-us':
        # PDF417-like 2D barcode and a 1D barcode
        bx0, by0, bx1, by1 = 6, 6, Wm - 6, 30
        sh.rect(bx0 - 1, by0 - 1, bx1 + 1, by1 + 1, fill=(250, 250, 250))
        rows = 18
        mod = 0.33
        ncols = int((bx1 - bx0) / mod)
        rh = (by1 - by0) / rows
        for r in range(rows):
            bits = [1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0] + [rng.random() < 0.5 for _ in range(ncols - 26)] + \
                   [1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 1]
            c = 0
            while c < len(bits):
                if bits[c]:
                    e = c
                    while e < len(bits) and bits[e]:
                        e += 1
                    sh.rect(bx0 + c * mod, by0 + r * rh, bx0 + e * mod, by0 + (r + 1) * rh, fill=(0, 0, 0))
                    c = e
                else:
                    c += 1
        x = 10
        while x < Wm - 10:
            w = rng.choice([0.25, 0.25, 0.5, 0.75])
            sh.rect(x, 36, x + w, 46, fill=(0, 0, 0))
            x += w + rng.choice([0.25, 0.5, 0.5, 0.75])
        sh.text(Wm / 2, 50, P['number'], vf, 1.6, pal['value'], anchor='ms')
    else:
        # category table (EU model: columns 9, 10, 11, 12)
        cats = ['AM', 'A1', 'A2', 'A', 'B1', 'B', 'C1', 'C', 'D1', 'D', 'BE', 'C1E', 'CE', 'D1E', 'DE']
        held = set(P['categories'].split('/'))
        x0, x1, y0, y1 = 3, Wm - 3, 4, Hm - 7
        cols = [x0, x0 + 12, x0 + 24, x0 + 44, x0 + 64, x1]
        rh = (y1 - y0) / (len(cats) + 1)
        grid = (90, 90, 100)
        for i in range(len(cats) + 2):
            sh.draw.line([(x0 * ppm, (y0 + i * rh) * ppm), (x1 * ppm, (y0 + i * rh) * ppm)], fill=grid, width=1)
        for c in cols:
            sh.draw.line([(c * ppm, y0 * ppm), (c * ppm, (y0 + (len(cats) + 1) * rh) * ppm)], fill=grid, width=1)
        for j, h in enumerate(['9.', '', '10.', '11.', '12.']):
            sh.text(cols[j] + 1, y0 + rh * 0.8, h, lf, rh * 0.5, pal['label'])
        for i, cat in enumerate(cats):
            yb = y0 + (i + 1.8) * rh
            sh.text(cols[0] + 1, yb, cat, vf, rh * 0.55, pal['value'])
            sh.rect(cols[1] + 2, y0 + (i + 1.2) * rh, cols[1] + 9, y0 + (i + 1.8) * rh, fill=(150, 150, 160))
            if cat in held:
                sh.text(cols[2] + 1, yb, P['cat_issue'], vf, rh * 0.5, pal['value'], max_w=19)
                sh.text(cols[3] + 1, yb, P['expiry'], vf, rh * 0.5, pal['value'], max_w=19)
        sh.text(x0, Hm - 2.5, '13.      14.', lf, 1.2, pal['label'])
    img = rounded_alpha(sh.img, int(3.18 * ppm), PAD)
    return img, dict(ppm=ppm, w_mm=Wm, h_mm=Hm, mrz=None, kind='card', spine_y=None, pad=PAD)


# ---------------------------------------------------------------------------
# Photograph model
# ---------------------------------------------------------------------------

G2L = ((np.arange(256, dtype=np.float64) / 255.0) ** 2.2).astype(np.float32)


def l2g_lut(contrast=0.0):
    """Linear [0,1] (4096 steps) -> 8-bit, gamma 1/2.2, optional S-curve."""
    x = np.linspace(0, 1, 4096)
    y = x ** (1 / 2.2)
    if contrast:
        s = y * y * (3 - 2 * y)
        y = (1 - contrast) * y + contrast * s
    return np.clip(y * 255 + 0.5, 0, 255).astype(np.uint8)


def rot_matrix(roll, ax, ay):
    cr, sr = math.cos(roll), math.sin(roll)
    cx, sx = math.cos(ax), math.sin(ax)
    cy, sy = math.cos(ay), math.sin(ay)
    Rz = np.array([[cr, -sr, 0], [sr, cr, 0], [0, 0, 1]])
    Rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    Ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    return Rz @ Rx @ Ry


class Camera:
    """Pinhole camera looking along +Z at a document whose centre is at
    (0, 0, D); document coordinates in mm, X right, Y down, Z into the
    scene.  z(X, Y) is the surface relief (bent pages)."""

    def __init__(self, f, cx, cy, R, D, zfun=None):
        self.f, self.cx, self.cy, self.R, self.D = f, cx, cy, R, D
        self.zfun = zfun

    def project(self, X, Y, Z=None):
        X = np.asarray(X, np.float64)
        Y = np.asarray(Y, np.float64)
        if Z is None:
            Z = self.zfun(X, Y) if self.zfun else np.zeros_like(X)
        R = self.R
        px = R[0, 0] * X + R[0, 1] * Y + R[0, 2] * Z
        py = R[1, 0] * X + R[1, 1] * Y + R[1, 2] * Z
        pz = R[2, 0] * X + R[2, 1] * Y + R[2, 2] * Z + self.D
        return self.f * px / pz + self.cx, self.f * py / pz + self.cy

    def backproject(self, u, v):
        """Ray/surface intersection for image points -> document (X, Y)."""
        dxc = (u - self.cx) / self.f
        dyc = (v - self.cy) / self.f
        Rt = self.R.T
        # ray origin and direction in document coordinates
        o = Rt @ np.array([0.0, 0.0, -self.D])
        ex = Rt[0, 0] * dxc + Rt[0, 1] * dyc + Rt[0, 2]
        ey = Rt[1, 0] * dxc + Rt[1, 1] * dyc + Rt[1, 2]
        ez = Rt[2, 0] * dxc + Rt[2, 1] * dyc + Rt[2, 2]
        s = -o[2] / ez
        X = o[0] + s * ex
        Y = o[1] + s * ey
        if self.zfun:
            for _ in range(4):
                s = (self.zfun(X, Y) - o[2]) / ez
                X = o[0] + s * ex
                Y = o[1] + s * ey
        return X, Y


def make_zfun(meta, rng):
    """Surface relief in mm (positive = away from the camera)."""
    w, h = meta['w_mm'], meta['h_mm']
    if meta['kind'] in ('page', 'booklet'):
        ys = meta['spine_y']
        depth = rng.uniform(1.0, 2.2)
        width = rng.uniform(6, 14)
        bow = rng.uniform(-0.8, 0.8)

        def z(X, Y):
            return depth * np.exp(-np.abs(Y - ys) / width) + bow * ((X / (w / 2)) ** 2 - 0.33)
        return z, dict(sag_mm=round(depth, 2), sag_width_mm=round(width, 1), bow_mm=round(bow, 2))
    bow = rng.uniform(0.6, 2.0) * rng.choice([-1, 1])
    along_x = rng.random() < 0.7

    def z(X, Y):
        t = (X / (w / 2)) if along_x else (Y / (h / 2))
        return bow * (t * t - 0.33)
    return z, dict(card_bow_mm=round(bow, 2), axis='x' if along_x else 'y')


def background(W, H, rng, nrng, shadow=None):
    """Table-top textures generated at 1/3 resolution; 'shadow' is an
    (alpha L image, offset (dx, dy) in full-res px, blur px, darkness) drop
    shadow of the document, applied before the single upscale."""
    w, h = max(8, W // 3), max(8, H // 3)
    kind = rng.choice(['wood', 'wood', 'cloth', 'dark', 'pattern', 'light', 'marble'])
    yy = np.arange(h, dtype=np.float32)[:, None]
    xx = np.arange(w, dtype=np.float32)[None, :]
    lf = lowfreq(nrng, h, w, 4)
    sc = max(w, h)
    if kind == 'wood':
        c1 = np.array(rng.choice([(196, 150, 100), (120, 78, 45), (170, 120, 75), (215, 195, 165), (90, 58, 35)]), np.float32)
        c2 = c1 * rng.uniform(0.72, 0.88)
        th = rng.uniform(0, math.pi)
        u = xx * math.cos(th) + yy * math.sin(th)
        v = -xx * math.sin(th) + yy * math.cos(th)
        warp = lowfreq(nrng, h, w, 3) * sc * 0.05
        per = sc / rng.uniform(40, 110)
        ph = v + warp + lowfreq(nrng, h, w, 12) * per * 1.5
        g = 0.5 + 0.5 * np.sin(2 * math.pi * ph / per + 0.8 * np.sin(u / (sc * 0.2)))
        g = g ** rng.uniform(2.0, 5.0)
        fine = lowfreq(nrng, h, w, 40)
        streak = (np.sin(2 * math.pi * (v + warp * 0.3) / (per * 0.23)) * 0.05 + (fine - 0.5) * 0.12)
        t = np.clip(g * rng.uniform(0.35, 0.7) + streak + 0.3 * (lf - 0.3), 0, 1)[..., None]
        img = c1 * (1 - t) + c2 * t
        # planks
        if rng.random() < 0.5:
            pw = sc / rng.uniform(3, 6)
            dseam = pw / 2 - np.abs((v % pw) - pw / 2)
            seam = np.clip(1.2 - dseam, 0, 1)[..., None]
            img = img * (1 - seam) + (c2 * 0.55) * seam
    elif kind == 'cloth':
        c1 = np.array(hsv255(rng.random(), rng.uniform(0.2, 0.7), rng.uniform(0.25, 0.8)), np.float32)
        p = rng.uniform(1.6, 3.0)
        weave = (np.sin(2 * math.pi * xx / p) * np.sin(2 * math.pi * yy / p)) * 0.12
        folds = (lf - 0.5) * 0.5
        img = c1 * (1 + weave + folds)[..., None]
    elif kind == 'dark':
        c1 = np.array([rng.uniform(25, 60)] * 3, np.float32) * np.array([1, rng.uniform(0.95, 1.05), rng.uniform(0.95, 1.1)], np.float32)
        img = c1 * (0.8 + 0.4 * lf)[..., None]
        img = img + nrng.standard_normal((h, w, 1), dtype=np.float32) * 3
    elif kind == 'pattern':
        c1 = np.array(hsv255(rng.random(), rng.uniform(0.3, 0.7), rng.uniform(0.5, 0.85)), np.float32)
        c2 = np.array((235, 232, 225), np.float32)
        p = sc / rng.uniform(10, 30)
        if rng.random() < 0.5:  # gingham
            a = np.clip(np.abs((xx % (2 * p)) - p) - p / 2 + 0.5, 0, 1)
            b = np.clip(np.abs((yy % (2 * p)) - p) - p / 2 + 0.5, 0, 1)
            t = (0.5 * a + 0.5 * b)[..., None]
        else:  # dots
            d = np.hypot((xx % p) - p / 2, (yy % p) - p / 2)
            t = np.clip(p * rng.uniform(0.15, 0.3) - d + 0.5, 0, 1)[..., None]
        img = (c2 * (1 - t) + c1 * t) * (0.85 + 0.3 * lf)[..., None]
    elif kind == 'light':
        c1 = np.array(rng.choice([(236, 234, 228), (222, 224, 226), (245, 240, 230)]), np.float32)
        img = c1 * (0.9 + 0.15 * lf)[..., None]
    else:  # marble
        c1 = np.array((225, 222, 218), np.float32)
        c2 = np.array(rng.choice([(120, 120, 125), (90, 100, 95), (160, 140, 120)]), np.float32)
        th = rng.uniform(0, math.pi)
        turb = (lowfreq(nrng, h, w, 3) * 2.0 + lowfreq(nrng, h, w, 7) * 1.0 + lowfreq(nrng, h, w, 17) * 0.5)
        ph = (xx * math.cos(th) + yy * math.sin(th)) / sc * rng.uniform(5, 10) + turb * rng.uniform(0.8, 1.8)
        vein = np.exp(-np.abs(np.sin(ph)) * rng.uniform(6, 14))
        t = (vein * rng.uniform(0.3, 0.7) + (lowfreq(nrng, h, w, 5) - 0.5) * 0.15)[..., None]
        img = c1 * (1 - t) + c2 * t
    if shadow is not None:
        alpha, (dx, dy), blur, dark = shadow
        sm = alpha.resize((w, h), BICUBIC).filter(ImageFilter.GaussianBlur(max(0.5, blur * w / W)))
        sh_ = Image.new('L', (w, h), 0)
        sh_.paste(sm, (int(round(dx * w / W)), int(round(dy * h / H))))
        img = img * (1 - np.asarray(sh_, np.float32)[..., None] * (dark / 255.0))
    img = np.clip(img, 0, 255).astype(np.uint8)
    return Image.fromarray(img).resize((W, H), BICUBIC), kind


def disk_kernel(r):
    n = int(math.ceil(r))
    ss = 5
    g = (np.arange(-(n + 0.5) * ss, (n + 0.5) * ss) + 0.5) / ss
    d = np.hypot(g[None, :], g[:, None]) <= r
    k = d.reshape(2 * n + 1, ss, 2 * n + 1, ss).mean(axis=(1, 3))
    return k / k.sum()


def line_kernel(length, angle):
    n = int(math.ceil(length / 2)) + 1
    ss = 8
    im = Image.new('L', ((2 * n + 1) * ss, (2 * n + 1) * ss), 0)
    c = (n + 0.5) * ss
    dx, dy = math.cos(angle) * length / 2 * ss, math.sin(angle) * length / 2 * ss
    ImageDraw.Draw(im).line([(c - dx, c - dy), (c + dx, c + dy)], fill=255, width=ss)
    k = np.asarray(im, np.float32).reshape(2 * n + 1, ss, 2 * n + 1, ss).mean(axis=(1, 3))
    return k / k.sum()


def convolve_taps(img, kernel):
    """Small-kernel convolution by shifted sums (kernel <= ~9x9)."""
    a = np.asarray(img, np.float32)
    kh, kw = kernel.shape
    ry, rx = kh // 2, kw // 2
    p = np.pad(a, ((ry, ry), (rx, rx), (0, 0)), mode='edge')
    out = np.zeros_like(a)
    H, W = a.shape[:2]
    for dy in range(kh):
        for dx in range(kw):
            w = kernel[dy, dx]
            if w > 1e-4:
                out += w * p[dy:dy + H, dx:dx + W]
    return Image.fromarray(np.clip(out + 0.5, 0, 255).astype(np.uint8))


def trim_kernel(k, eps=1e-3):
    """Crop a kernel to its support, keeping it centred (odd size)."""
    n = k.shape[0] // 2
    r = n
    while r > 0 and k[n - r, :].sum() + k[n + r, :].sum() + k[:, n - r].sum() + k[:, n + r].sum() < eps:
        r -= 1
    k = k[n - r:n + r + 1, n - r:n + r + 1]
    return k / k.sum()


def pil_kernel(k):
    """numpy kernel (<= 5x5) -> PIL 5x5 ImageFilter.Kernel."""
    kk = np.zeros((5, 5), np.float64)
    h, w = k.shape
    oy, ox = (5 - h) // 2, (5 - w) // 2
    kk[oy:oy + h, ox:ox + w] = k
    return ImageFilter.Kernel((5, 5), [float(v) for v in kk.ravel()], scale=float(kk.sum()))


def blur_with_kernel(im, kfun, size_full, max_work=2.0, use_pil=True):
    """Apply a kernel of size 'size_full' px (radius or length); when large,
    at a reduced resolution where it is max_work px, then back up (BICUBIC)."""
    W, H = im.size
    s = min(1.0, max_work / max(size_full, 1e-3))
    work = im
    if s < 0.98:
        work = im.resize((max(8, int(W * s)), max(8, int(H * s))), BICUBIC)
    k = trim_kernel(kfun(size_full * work.size[0] / W))
    if use_pil and k.shape[0] <= 5 and k.shape[1] <= 5:
        work = work.filter(pil_kernel(k))
    else:
        work = convolve_taps(work, k)
    return work.resize((W, H), BICUBIC) if work is not im and work.size != (W, H) else work


def draw_finger(arr, tip, base, radius, rng):
    """Skin-coloured rounded finger (capsule) with shading, a nail and a
    soft contact shadow, drawn into arr (H, W, 3 uint8) in place."""
    H, W = arr.shape[:2]
    tx, ty = tip
    bx, by = base
    m = radius * 1.6
    x0, x1 = int(max(0, min(tx, bx) - m)), int(min(W, max(tx, bx) + m))
    y0, y1 = int(max(0, min(ty, by) - m)), int(min(H, max(ty, by) + m))
    if x1 <= x0 or y1 <= y0:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    dx, dy = bx - tx, by - ty
    L = math.hypot(dx, dy) or 1.0
    ux, uy = dx / L, dy / L

    taper = rng.uniform(0.15, 0.3)

    def capsule(ox, oy):
        rx, ry = xx - (tx + ox), yy - (ty + oy)
        t = np.clip(rx * ux + ry * uy, 0, L)
        cxp, cyp = rx - t * ux, ry - t * uy
        grow = 1 + taper * np.clip(t / (5 * radius), 0, 1)  # wider towards the hand
        return np.sqrt(cxp * cxp + cyp * cyp) / grow, t, (rx * uy - ry * ux) / grow

    reg = arr[y0:y1, x0:x1].astype(np.float32)
    # contact shadow, offset away from the light
    sd, _, _ = capsule(radius * 0.25, radius * 0.2)
    sh = np.clip(1 - (sd - radius * 0.7) / (radius * 0.8), 0, 1) * rng.uniform(0.35, 0.55)
    reg *= (1 - sh)[..., None]
    dist, t, perp = capsule(0, 0)
    aa = max(1.5, radius * 0.05)
    alpha = np.clip(0.5 - (dist - radius) / aa, 0, 1)
    z = np.sqrt(np.clip(1 - (dist / radius) ** 2, 0, 1))
    light = rng.uniform(-0.4, 0.4)
    pn = np.clip(perp / radius, -1, 1)
    shade = 0.45 + 0.55 * z ** 0.6 + 0.15 * light * pn
    skin = np.array(rng.choice([(224, 172, 140), (198, 140, 108), (160, 110, 80), (241, 194, 167),
                                (120, 80, 58), (210, 160, 125)]), np.float32)
    red = np.clip(1 - t / (3 * radius), 0, 1)[..., None] * np.array([0.06, -0.04, -0.04], np.float32)
    mott = (lowfreq(np.random.default_rng(rng.getrandbits(32)), y1 - y0, x1 - x0, 6) - 0.5)[..., None] * 0.08
    col = skin[None, None, :] * (shade[..., None] * (1 + red + mott))
    spec = np.exp(-((pn - 0.25 - light * 0.3) / 0.18) ** 2) * z * rng.uniform(0.1, 0.25) * 255
    col += spec[..., None]
    if rng.random() < 0.6:  # nail near the tip
        nail = (t < radius * 1.4) & (np.abs(pn) < 0.55) & (dist < radius * 0.95)
        nail_col = np.clip(skin * np.array([1.1, 1.0, 1.02]) + 25, 0, 255)
        nm = nail.astype(np.float32)
        col = col * (1 - 0.7 * nm[..., None]) + (nail_col * (0.7 + 0.3 * z[..., None])) * 0.7 * nm[..., None]
    reg = reg * (1 - alpha[..., None]) + np.clip(col, 0, 255) * alpha[..., None]
    arr[y0:y1, x0:x1] = np.clip(reg, 0, 255).astype(np.uint8)


COND_POSE = {
    # roll max (deg), tilt range (deg)
    'mild': (5, (0, 6)), 'tilt': (15, (12, 25)), 'perspective': (4, (24, 36)),
    'lowlight': (7, (0, 10)), 'soft': (7, (0, 10)), 'motion': (7, (0, 10)), 'glare': (7, (0, 12)),
    'shadow': (7, (0, 10)), 'phone': (8, (0, 12)), 'bent': (6, (6, 16)), 'everything': (12, (8, 22)),
    'finger': (6, (0, 10)), 'glare_mrz': (6, (0, 10)), 'extreme_blur': (8, (0, 10)),
    'near_black': (8, (0, 10)),
}


def plan_effects(cond, rng):
    """Which effects a condition uses."""
    fx = set()
    if cond == 'everything':
        pool = ['lowlight', 'blur', 'glare', 'shadow', 'phone', 'bent', 'vignette']
        fx |= set(rng.sample(pool, rng.randint(3, 4)))
        if 'blur' in fx:
            fx.discard('blur')
            fx.add(rng.choice(['soft', 'motion']))
    elif cond in ('lowlight', 'soft', 'motion', 'glare', 'shadow', 'phone', 'bent'):
        fx.add(cond)
    if rng.random() < 0.35:
        fx.add('vignette')
    if rng.random() < 0.3:
        fx.add('cast')
    return fx


def photograph(side, meta, rng, nrng, cond, opts):
    """Photograph one document side. Returns (PIL RGB image, info dict)."""
    info = {'condition': cond}
    fx = plan_effects(cond, rng)
    max_mp = opts['max_mp']
    u = rng.random()
    mp = 1.0 + (max_mp - 1.0) * u ** 1.5
    aspect = 4 / 3 if rng.random() < 0.65 else 16 / 9
    doc_landscape = meta['w_mm'] >= meta['h_mm']
    landscape = rng.random() < (0.75 if doc_landscape else 0.3)
    Wl = int(round(math.sqrt(mp * 1e6 * aspect)))
    Hs = int(round(Wl / aspect))
    W, H = (Wl, Hs) if landscape else (Hs, Wl)
    W -= W % 2
    H -= H % 2
    info.update(size=[W, H], mp=round(W * H / 1e6, 2))
    k2 = math.sqrt(W * H / 2e6)  # scale relative to a 2 MP image

    # --- geometry -------------------------------------------------------
    roll_max, (tmin, tmax) = COND_POSE.get(cond, (6, (0, 10)))
    roll = math.radians(rng.uniform(-roll_max, roll_max))
    tilt = math.radians(rng.uniform(tmin, tmax))
    if cond == 'perspective':
        psi = rng.choice([0, math.pi]) + math.radians(rng.uniform(-25, 25))
    else:
        psi = rng.uniform(0, 2 * math.pi)
    ax, ay = tilt * math.cos(psi), tilt * math.sin(psi)
    R = rot_matrix(roll, ax, ay)
    zfun = None
    if 'bent' in fx:
        zfun, binfo = make_zfun(meta, rng)
        info['bend'] = binfo
    fov = math.radians(rng.uniform(60, 76))
    fpx = (max(W, H) / 2) / math.tan(fov / 2)
    wm, hm = meta['w_mm'], meta['h_mm']
    min_ppm = opts.get('min_ppm', 0)
    fmin = max(0.30, min_ppm * wm / W)
    fill = rng.uniform(min(fmin, 0.93), 0.95) if opts.get('fill') is None else opts['fill']
    cam = Camera(fpx, W / 2, H / 2, R, fpx * wm / (fill * W), zfun)
    gx = np.linspace(-wm / 2, wm / 2, 9)
    gy = np.linspace(-hm / 2, hm / 2, 9)
    EX = np.concatenate([gx, gx, np.full(9, -wm / 2), np.full(9, wm / 2)])
    EY = np.concatenate([np.full(9, -hm / 2), np.full(9, hm / 2), gy, gy])
    for _ in range(5):
        uu, vv = cam.project(EX, EY)
        bw, bh = uu.max() - uu.min(), vv.max() - vv.min()
        s = bw / (fill * W)
        if bh * (1 / s) > 0.96 * H:
            s = bh / (0.96 * H)
        cam.D *= s
    uu, vv = cam.project(EX, EY)
    mx, my = 0.01 * W, 0.01 * H
    lo_x, hi_x = mx - uu.min(), W - mx - uu.max()
    lo_y, hi_y = my - vv.min(), H - my - vv.max()
    cam.cx += rng.uniform(min(lo_x, hi_x), max(lo_x, hi_x))
    cam.cy += rng.uniform(min(lo_y, hi_y), max(lo_y, hi_y))
    mrz = meta.get('mrz')

    def to_c(x, y):  # content mm (top-left origin) -> centred
        return x - wm / 2, y - hm / 2

    if opts.get('cut') and mrz:
        b = mrz['box_mm']
        mu, mv = cam.project(*to_c(np.array([b[0], b[2], b[2], b[0]]), np.array([b[1], b[1], b[3], b[3]])))
        edge = rng.choice(['bottom', 'bottom', 'right', 'left'])
        if edge == 'bottom':
            frac = rng.uniform(0.25, 0.6)
            cam.cy += (H - 1) - (mv.min() + frac * (mv.max() - mv.min()))
        elif edge == 'right':
            frac = rng.uniform(0.5, 0.8)
            cam.cx += (W - 1) - (mu.min() + frac * (mu.max() - mu.min()))
        else:
            frac = rng.uniform(0.2, 0.5)
            cam.cx += -(mu.min() + frac * (mu.max() - mu.min()))
        info['cut'] = {'edge': edge, 'fraction_of_mrz_kept': round(frac if edge != 'left' else 1 - frac, 2)}
    uu, vv = cam.project(EX, EY)
    ppm_out = math.hypot(*(np.array(cam.project(wm / 2, 0)) - np.array(cam.project(-wm / 2, 0)))) / wm
    info.update(roll_deg=round(math.degrees(roll), 1), tilt_deg=round(math.degrees(tilt), 1),
                tilt_dir_deg=round(math.degrees(psi) % 360, 0), fov_deg=round(math.degrees(fov), 0),
                fill=round(float(bw / W), 2), px_per_mm=round(ppm_out, 2))
    def quad(x0, y0, x1, y1):
        qu, qv = cam.project(*to_c(np.array([x0, x1, x1, x0], float), np.array([y0, y0, y1, y1], float)))
        return [[round(float(a_), 1), round(float(b_), 1)] for a_, b_ in zip(qu, qv)]

    info['doc_quad_px'] = quad(0, 0, wm, hm)  # TL, TR, BR, BL
    if mrz:
        info['mrz_char_height_px'] = round(mrz['cap_mm'] * ppm_out, 1)
        b = mrz['box_mm']
        info['mrz_quad_px'] = quad(b[0], b[1] - 0.5, b[2], b[3] + 0.5)

    # --- warp the document onto the frame ---------------------------------
    src = side
    sw, shh = src.size
    pad = meta['pad']
    sppm = (sw - 2 * pad) / wm
    lx = []
    for (ax_, ay_), (bx_, by_) in (((-1, -1), (1, -1)), ((-1, 1), (1, 1)), ((-1, -1), (-1, 1)), ((1, -1), (1, 1))):
        p0 = cam.project(ax_ * wm / 2, ay_ * hm / 2)
        p1 = cam.project(bx_ * wm / 2, by_ * hm / 2)
        lx.append(math.hypot(p1[0] - p0[0], p1[1] - p0[1]) / (wm if ay_ == by_ else hm))
    target = min(sppm, 1.3 * max(lx))
    if target < 0.85 * sppm:
        kf = target / sppm
        src = src.resize((max(8, int(round(sw * kf))), max(8, int(round(shh * kf)))), BICUBIC)
        pad = pad * src.size[0] / sw
        sppm = (src.size[0] - 2 * pad) / wm
    base_sigma = rng.uniform(0.35, 0.8) * max(1.0, 0.8 * k2)  # lens/ISP softness, output px
    sig_src = base_sigma * sppm / max(ppm_out, 1e-3)
    if sig_src > 0.3:
        src = src.filter(ImageFilter.GaussianBlur(sig_src))
    if 'phone' not in fx and rng.random() < 0.4:  # mild in-camera sharpening
        src = src.filter(ImageFilter.UnsharpMask(radius=max(0.8, sig_src * 1.5), percent=rng.randint(40, 100), threshold=2))
    info['lens_sigma_px'] = round(base_sigma, 2)
    sw, shh = src.size
    step = 32 if max(W, H) > 1500 else 24
    u0 = max(0, int(uu.min()) - step)
    u1 = min(W, int(uu.max()) + 2 * step)
    v0 = max(0, int(vv.min()) - step)
    v1 = min(H, int(vv.max()) + 2 * step)
    gu = np.arange(u0, u1 + step, step, dtype=np.float64)
    gv = np.arange(v0, v1 + step, step, dtype=np.float64)
    GU, GV = np.meshgrid(gu, gv)
    X, Y = cam.backproject(GU, GV)
    SX = (X + wm / 2) * sppm + pad
    SY = (Y + hm / 2) * sppm + pad
    c00, c10 = (SX[:-1, :-1], SY[:-1, :-1]), (SX[1:, :-1], SY[1:, :-1])
    c11, c01 = (SX[1:, 1:], SY[1:, 1:]), (SX[:-1, 1:], SY[:-1, 1:])
    qx = np.stack([c00[0], c10[0], c11[0], c01[0]])
    qy = np.stack([c00[1], c10[1], c11[1], c01[1]])
    keep = (qx.max(0) > -2) & (qx.min(0) < sw + 2) & (qy.max(0) > -2) & (qy.min(0) < shh + 2)
    data = []
    for i, j in zip(*np.nonzero(keep)):
        box = (int(gu[j]), int(gv[i]), int(gu[j + 1]), int(gv[i + 1]))
        quad = (c00[0][i, j], c00[1][i, j], c10[0][i, j], c10[1][i, j],
                c11[0][i, j], c11[1][i, j], c01[0][i, j], c01[1][i, j])
        data.append((box, quad))
    warped = src.transform((W, H), Image.Transform.MESH, data, resample=BICUBIC)

    # --- scene: background, shadow, document, occluders -------------------
    a = warped.getchannel('A')
    off = (rng.uniform(-0.01, 0.02) * W, rng.uniform(0.0, 0.025) * H)
    scene, bgkind = background(W, H, rng, nrng,
                               shadow=(a, off, rng.uniform(4.0, 16.0) * k2, rng.uniform(0.25, 0.55)))
    info['background'] = bgkind
    scene.paste(warped, (0, 0), warped)
    arr = None
    if opts.get('finger') and mrz:
        b = mrz['box_mm']
        arr = np.array(scene)
        variant = rng.choice(['bottom', 'side'])
        mw, mh = b[2] - b[0], b[3] - b[1]
        reach = 260.0  # the finger runs out of the frame towards the hand
        if variant == 'bottom':
            tx = b[0] + rng.uniform(0.25, 0.75) * mw
            ty = b[1] + rng.uniform(-0.1, 0.35) * mh
            a_ = math.radians(90 + rng.uniform(-30, 30))
        else:
            left = rng.random() < 0.5
            tx = b[0] + rng.uniform(0.12, 0.35) * mw if left else b[2] - rng.uniform(0.12, 0.35) * mw
            ty = b[1] + rng.uniform(0.2, 0.8) * mh
            a_ = math.radians((180 if left else 0) + rng.uniform(-30, 30))
        bx_, by_ = tx + reach * math.cos(a_), ty + reach * math.sin(a_)
        tp = cam.project(*to_c(tx, ty))
        bp = cam.project(*to_c(bx_, by_))
        radius = rng.uniform(7.5, 9.5) * ppm_out * rng.uniform(1.05, 1.3)
        draw_finger(arr, (float(tp[0]), float(tp[1])), (float(bp[0]), float(bp[1])), radius, rng)
        info['finger'] = {'from': variant, 'tip_mm': [round(tx, 1), round(ty, 1)], 'radius_px': round(radius, 1)}
        scene = Image.fromarray(arr)

    # --- optics -----------------------------------------------------------
    if cond == 'extreme_blur':
        sig = rng.uniform(6, 10) * k2
        scene = scene.filter(ImageFilter.GaussianBlur(sig))
        info['blur_sigma_px'] = round(sig, 1)
    elif 'soft' in fx:
        r2 = rng.uniform(1.5, 3.0) if cond == 'soft' else rng.uniform(1.2, 2.0)
        scene = blur_with_kernel(scene, disk_kernel, r2 * k2)
        info['defocus_radius_px_at_2mp'] = round(r2, 2)
    elif 'motion' in fx:
        l2 = rng.uniform(2.5, 6.0) if cond == 'motion' else rng.uniform(2.0, 4.0)
        ang = rng.uniform(0, math.pi)
        scene = blur_with_kernel(scene, lambda L: line_kernel(L, ang), l2 * k2, max_work=4.0)
        info['motion_px_at_2mp'] = round(l2, 2)
        info['motion_angle_deg'] = round(math.degrees(ang))

    # --- light, sensor ----------------------------------------------------
    expo = rng.uniform(0.88, 1.08)
    fw = rng.uniform(3500, 9000)
    rn = rng.uniform(1.5, 4.0)
    gain = 1.0
    if 'lowlight' in fx:
        expo = rng.uniform(0.15, 0.35) if cond == 'lowlight' else rng.uniform(0.3, 0.5)
        fw = rng.uniform(400, 1000) if cond == 'lowlight' else rng.uniform(900, 1800)
        rn = rng.uniform(4, 8)
        gain = 1.0 / expo * rng.uniform(0.85, 1.05)
        info['exposure'] = round(expo, 3)
    if cond == 'near_black':
        expo = rng.uniform(0.0006, 0.0018)
        fw, rn, gain = rng.uniform(800, 1500), rng.uniform(4, 7), 1.0
        info['exposure'] = round(expo, 4)
    if 'glare' in fx:
        expo *= rng.uniform(1.1, 1.4)
    wb = np.array([1.0, 1.0, 1.0], np.float32)
    if 'cast' in fx:
        warm = rng.uniform(-0.12, 0.12)
        wb = np.array([1 + warm + rng.uniform(-0.03, 0.03), 1.0 + rng.uniform(-0.03, 0.03), 1 - warm], np.float32)
        info['white_balance'] = [round(float(x), 3) for x in wb]
    vig = rng.uniform(0.15, 0.4) if 'vignette' in fx else rng.uniform(0.0, 0.12)
    grad = (rng.uniform(-0.12, 0.12), rng.uniform(-0.12, 0.12))
    glares = []
    if 'glare' in fx:
        n = 1 if rng.random() < 0.7 else 2
        for _ in range(n):
            if mrz:
                ylim = mrz['box_mm'][1]
                gyc = rng.uniform(0.1 * hm, max(0.12 * hm, ylim - 14))
                sig = rng.uniform(3.5, max(3.6, min(12.0, (ylim - gyc) / 3.2)))
            else:
                gyc = rng.uniform(0.1 * hm, 0.9 * hm)
                sig = rng.uniform(3.5, 10)
            gxc = rng.uniform(0.1 * wm, 0.9 * wm)
            glares.append((gxc, gyc, sig, rng.uniform(0.4, 1.0), rng.uniform(0, math.pi), rng.uniform(0.8, 2.2)))
        info['glare'] = [{'centre_mm': [round(g[0], 1), round(g[1], 1)], 'sigma_mm': round(g[2], 1), 'amp': round(g[5], 2)} for g in glares]
    if opts.get('glare_mrz') and mrz:
        b = mrz['box_mm']
        mw = b[2] - b[0]
        sx = mw * rng.uniform(0.10, 0.16)
        glares.append((b[0] + rng.uniform(0.25, 0.75) * mw, (b[1] + b[3]) / 2 + rng.uniform(-1, 1),
                       sx, rng.uniform(0.5, 1.0), rng.uniform(-0.4, 0.4), rng.uniform(5, 10)))
        info['glare_mrz'] = {'centre_mm': [round(glares[-1][0], 1), round(glares[-1][1], 1)], 'sigma_mm': round(sx, 1)}
    shadow = None
    if 'shadow' in fx:
        cxm, cym = rng.uniform(0.25, 0.75) * wm, rng.uniform(0.25, 0.75) * hm
        pc = cam.project(*to_c(cxm, cym))
        th = rng.uniform(0, 2 * math.pi)
        depth = rng.uniform(0.35, 0.6) if cond != 'everything' else rng.uniform(0.3, 0.5)
        soft = rng.uniform(0.02, 0.07) * W
        curv = rng.uniform(-1.5, 1.5) / max(W, H)
        shadow = (float(pc[0]), float(pc[1]), math.cos(th), math.sin(th), depth, soft, curv)
        info['shadow'] = {'depth': round(depth, 2), 'edge_px': round(soft)}
    alpha_arr = np.asarray(a)
    contrast = rng.uniform(0.0, 0.35)
    lut = l2g_lut(contrast)
    out = np.empty((H, W, 3), np.uint8)
    src_arr = np.asarray(scene)
    T = 509
    # sensor noise after demosaicing: slightly correlated luma + blotchy chroma
    lum = nrng.standard_normal((T, T), dtype=np.float32)
    lum = (lum + np.roll(lum, 1, 0) + np.roll(lum, 1, 1) + np.roll(np.roll(lum, 1, 0), 1, 1)) * 0.5
    chroma = nrng.standard_normal((T // 4 + 2, T // 4 + 2, 3), dtype=np.float32)
    chroma = np.asarray(Image.fromarray(((chroma * 40) + 128).clip(0, 255).astype(np.uint8)).resize((T, T), BICUBIC),
                        np.float32) / 40.0 - 3.2
    tile = lum[..., None] * 0.85 + chroma * 0.45
    colidx = (np.arange(W) + rng.randrange(T)) % T
    band = tile[:, colidx]  # (T, W, 3) noise rows
    xn = (np.arange(W, dtype=np.float32) - W / 2) / (max(W, H) / 2)
    gl_px = []
    for (gxc, gyc, sig, ecc, ang, amp) in glares:
        pu, pv = cam.project(*to_c(gxc, gyc))
        gl_px.append((float(pu), float(pv), sig * ppm_out, sig * ecc * ppm_out, ang, amp))
    strip = 64
    for r0 in range(0, H, strip):
        r1 = min(H, r0 + strip)
        lin = np.take(G2L, src_arr[r0:r1])
        yn = ((np.arange(r0, r1, dtype=np.float32) - H / 2) / (max(W, H) / 2))[:, None]
        field = expo * (1 + grad[0] * xn[None, :] + grad[1] * yn) * (1 - vig * (xn[None, :] ** 2 + yn ** 2) / 1.6)
        if shadow:
            px_, py_, nx_, ny_, depth, soft, curv = shadow
            xs = np.arange(W, dtype=np.float32)[None, :] - px_
            ys = np.arange(r0, r1, dtype=np.float32)[:, None] - py_
            along = -xs * ny_ + ys * nx_
            d = xs * nx_ + ys * ny_ + curv * along * along
            field = field * (1 - depth * (0.5 + 0.5 * np.tanh(d * np.float32(2.0 / soft))))
        lin *= field.astype(np.float32)[..., None]
        if 'cast' in fx:
            lin *= wb
        for (pu, pv, su, sv, ang, amp) in gl_px:
            ext = 3.2 * max(su, sv)
            gy0, gy1 = max(r0, int(pv - ext)), min(r1, int(pv + ext) + 1)
            gx0, gx1 = max(0, int(pu - ext)), min(W, int(pu + ext) + 1)
            if gy0 >= gy1 or gx0 >= gx1:
                continue
            yy = np.arange(gy0, gy1, dtype=np.float32)[:, None] - pv
            xx = np.arange(gx0, gx1, dtype=np.float32)[None, :] - pu
            ca, sa = math.cos(ang), math.sin(ang)
            q = ((xx * ca + yy * sa) / su) ** 2 + ((-xx * sa + yy * ca) / sv) ** 2
            g = amp * np.exp(-0.5 * q) * (alpha_arr[gy0:gy1, gx0:gx1] / 255.0) * expo
            lin[gy0 - r0:gy1 - r0, gx0:gx1] += g[..., None].astype(np.float32)
        noise = band[(np.arange(r0, r1) * 7 + 13) % T]
        sigma = lin * np.float32(1.0 / fw)
        sigma += np.float32((rn / fw) ** 2)
        np.sqrt(sigma, out=sigma)
        sigma *= noise
        lin += sigma
        lin *= np.float32(gain * 4095.0)
        np.clip(lin, 0, 4095, out=lin)
        np.take(lut, lin.astype(np.uint16), out=out[r0:r1])
    img = Image.fromarray(out)

    # --- phone processing and JPEG -----------------------------------------
    if 'phone' in fx:
        # edge-aware denoise: smooth (at half resolution) where the image is flat
        half = img.resize((max(8, W // 2), max(8, H // 2)), BICUBIC)
        half = half.filter(ImageFilter.GaussianBlur(rng.uniform(0.5, 1.0) * max(1, k2 * 0.4)))
        edges = half.convert('L').filter(ImageFilter.FIND_EDGES).point(lambda v: min(255, v * 10))
        edges = edges.filter(ImageFilter.BoxBlur(1))
        img = Image.composite(img, half.resize((W, H), BICUBIC), edges.resize((W, H), BICUBIC))
        usm = (rng.uniform(1.5, 3.5) * max(1, k2 * 0.6), rng.randint(150, 300), rng.randint(0, 3))
        img = img.filter(ImageFilter.UnsharpMask(radius=usm[0], percent=usm[1], threshold=usm[2]))
        q = rng.randint(50, 95)
        subs = 2
        info['phone'] = {'usm_radius': round(usm[0], 1), 'usm_percent': usm[1]}
    else:
        q = rng.randint(85, 95) if cond != 'lowlight' else rng.randint(80, 92)
        subs = rng.choice([0, 2, 2])
    info['jpeg_quality'] = q
    info['effects'] = sorted(fx)
    return img, q, subs, info


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

CASE_WEIGHTS = [('genuine', 45), ('minor', 5), ('expired', 5), ('forged_birth', 5),
                ('forged_expiry', 4), ('forged_number', 4), ('forged_surname', 4), ('cut', 4),
                ('covered', 4), ('unreadable', 4), ('wrong_country', 3), ('wrong_type', 3),
                ('licence_minor', 2), ('licence_expired', 2), ('licence_adult', 3),
                ('other_person', 3)]
SCAN = ['partial_id', 'id_scan_error', 'poor_id_scan_error']
EXPECT = {
    'genuine': ('approved', []), 'minor': ('failed', ['minor']),
    'expired': ('failed', ['expired_id']),
    'forged_birth': ('failed', ['potential_fraud', 'minor']),
    'forged_expiry': ('failed', ['potential_fraud', 'expired_id']),
    'forged_number': ('failed', ['potential_fraud']),
    'forged_surname': ('failed', ['potential_fraud']),
    'cut': ('failed', SCAN), 'covered': ('failed', SCAN),
    'unreadable': ('failed', ['poor_id_scan_error', 'id_scan_error', 'partial_id']),
    'wrong_country': ('failed', ['invalid_id']), 'wrong_type': ('failed', ['invalid_id']),
    'licence_minor': ('failed', ['minor']), 'licence_expired': ('failed', ['expired_id']),
    'licence_adult': ('review_ok', []), 'other_person': ('failed', ['photo_mismatch']),
}
GENUINE_CONDS = ['mild', 'tilt', 'perspective', 'lowlight', 'soft', 'motion', 'glare', 'shadow',
                 'phone', 'bent', 'everything']
OTHER_CONDS = ['mild', 'mild', 'mild', 'tilt', 'perspective', 'phone', 'shadow', 'lowlight', 'bent']

EYES = {'en': 'BLUE BROWN GREEN GREY HAZEL', 'de': 'BLAU BRAUN GRÜN GRAU GRAUGRÜN',
        'fr': 'BLEUS MARRON VERTS GRIS NOISETTE', 'es': 'AZULES MARRONES VERDES GRISES CASTAÑOS',
        'it': 'AZZURRI CASTANI VERDI GRIGI NOCCIOLA', 'nl': 'BLAUW BRUIN GROEN GRIJS HAZELNOOT',
        'pl': 'NIEBIESKIE PIWNE ZIELONE SZARE BRĄZOWE', 'pt': 'AZUIS CASTANHOS VERDES CINZENTOS MEL'}
RP_TYPE = {'deu': ('AUFENTHALTSERLAUBNIS', 'ERWERBSTÄTIGKEIT GESTATTET'),
           'fra': ('CARTE DE SÉJOUR PLURIANNUELLE', 'AUTORISE SON TITULAIRE À TRAVAILLER'),
           'esp': ('RESIDENCIA TEMPORAL', 'AUTORIZA A TRABAJAR'),
           'ita': ('LAVORO SUBORDINATO', 'PERMESSO UNICO LAVORO'),
           'nld': ('VERBLIJFSVERGUNNING REGULIER', 'ARBEID VRIJ TOEGESTAAN'),
           'bel': ('CARTE A', 'MARCHÉ DU TRAVAIL: ILLIMITÉ'),
           'pol': ('ZEZWOLENIE NA POBYT CZASOWY', 'DOSTĘP DO RYNKU PRACY'),
           'swe': ('PERMANENT UPPEHÅLLSTILLSTÅND', 'ARBETSTILLSTÅND'),
           'prt': ('AUTORIZAÇÃO DE RESIDÊNCIA', 'AUTORIZA O EXERCÍCIO DE ATIVIDADE'),
           'aut': ('ROT-WEISS-ROT – KARTE', 'UNBESCHRÄNKTER ARBEITSMARKTZUGANG'),
           'che': ('AUFENTHALTSBEWILLIGUNG B', 'ERWERBSTÄTIGKEIT BEWILLIGT'),
           'irl': ('STAMP 4', 'PERMITTED TO WORK'), 'gbr': ('LEAVE TO REMAIN', 'WORK PERMITTED'),
           'usa': ('IR1', 'PERMANENT RESIDENT')}


def allocate(n, weights):
    tot = sum(w for _, w in weights)
    raw = [(c, n * w / tot) for c, w in weights]
    base = {c: int(math.floor(x)) for c, x in raw}
    rem = n - sum(base.values())
    order = sorted(range(len(raw)), key=lambda i: (-(raw[i][1] - math.floor(raw[i][1])), i))
    for i in order[:rem]:
        base[raw[i][0]] += 1
    return base


def tr_name(s):
    return ' '.join(x for x in mrz_translit(s).split('<') if x)


def make_doc(kind, rng, today):
    if kind.startswith('licence'):
        dtype = 'DriverLicense'
    elif kind == 'wrong_type':
        dtype = rng.choice(['Passport', 'IdCard'])
    else:
        r = rng.random()
        dtype = 'Passport' if r < 0.45 else ('IdCard' if r < 0.8 else 'ResidencePermit')
    cc = rng.choice({'Passport': COUNTRIES, 'IdCard': ID_CARD_COUNTRIES,
                     'ResidencePermit': RP_COUNTRIES, 'DriverLicense': COUNTRIES}[dtype])
    nat = cc if dtype != 'ResidencePermit' else rng.choice([c for c in RP_HOLDER_NATS if c != cc])
    sex = rng.choice('MF')
    sur, giv, cyr_s, cyr_g = pick_name(nat, sex, rng)
    if kind == 'minor':
        birth = birth_for_age(rng, today, 13, 17)
    elif kind == 'licence_minor':
        birth = birth_for_age(rng, today, 16, 17)
    elif kind == 'forged_birth':
        birth = birth_for_age(rng, today, 20, 60)
    else:
        birth = birth_for_age(rng, today, 18, 80)
    age = age_on(birth, today)
    us_style = cc in US_DL
    if dtype == 'Passport':
        valid = 5 if age < 18 else (10 if rng.random() < 0.85 else 5)
    elif dtype == 'IdCard':
        valid = 5 if age < 18 else (6 if cc == 'deu' and age < 24 else (15 if cc == 'fra' and rng.random() < 0.3 else 10))
    elif dtype == 'ResidencePermit':
        valid = 10 if cc == 'usa' else rng.choice([1, 2, 3, 5, 5, 10])
    else:
        valid = rng.randint(4, 8) if us_style else (rng.choice([10, 15]) if cc in EU_DL else rng.choice([5, 10]))
    expired = kind in ('expired', 'licence_expired')
    earliest = add_years(birth, 16 if dtype == 'DriverLicense' else 0) + dt.timedelta(days=20)
    if expired:
        expiry = today - dt.timedelta(days=rng.randint(1, 5 * 365))
        issue = add_years(expiry, -valid) + dt.timedelta(days=1)
        if issue < earliest:
            issue = earliest
    else:
        lo = max(add_years(today, -valid) + dt.timedelta(days=45), earliest)
        issue = rand_date(rng, lo, today - dt.timedelta(days=7))
        expiry = add_years(issue, valid) - dt.timedelta(days=rng.choice([0, 1]))
    state = None
    if dtype == 'DriverLicense':
        state = rng.choice(US_STATES) if cc == 'usa' else (rng.choice(CA_PROVINCES) if cc == 'can' else None)
        number = dl_number(cc, sur, giv, birth, sex, rng, state)
    else:
        number = doc_number(cc, dtype, rng)
    pers_mrz, pers_print = (None, None)
    if dtype in ('Passport', 'IdCard') and cc in ('pol', 'swe', 'nld', 'esp', 'tur', 'ukr', 'bel'):
        pers_mrz, pers_print = personal_number(cc, birth, sex, rng)
    fmt = None
    mrz = []
    st_code = mrz_state(cc)
    nat_code = mrz_state(nat)
    if dtype == 'Passport':
        fmt = 'TD3'
        mrz = mrz_td3('P', st_code, sur, giv, number, nat_code, yymmdd(birth), sex, yymmdd(expiry),
                      pers_mrz or '', empty_cd='<' if sum(map(ord, cc)) % 2 else '0')
    elif dtype in ('IdCard', 'ResidencePermit'):
        fmt = 'TD2' if rng.random() < 0.15 and cc != 'usa' else 'TD1'
        code = ID_DOC_CODE.get(cc, 'I') if dtype == 'IdCard' else {'deu': 'AR', 'usa': 'C1'}.get(cc, 'IR')
        opt1 = opt2 = ''
        if pers_mrz:
            if cc in ('pol', 'bel', 'swe'):
                opt2 = pers_mrz
            else:
                opt1 = pers_mrz if cc != 'ukr' else pers_mrz[:8] + '<' + pers_mrz[8:]
        if fmt == 'TD1':
            mrz = mrz_td1(code, st_code, number, yymmdd(birth), sex, yymmdd(expiry), nat_code, sur, giv,
                          opt1, opt2)
        else:
            mrz = mrz_td2(code, st_code, sur, giv, number, nat_code, yymmdd(birth), sex, yymmdd(expiry))
    truth = dict(surname=tr_name(sur), given=tr_name(giv), number=number.replace(' ', '').replace('-', ''),
                 birth=birth.isoformat(), expiry=expiry.isoformat(), nationality=nat.upper(), sex=sex)
    # --- the visual zone (possibly forged) ---------------------------------
    p_birth, p_expiry, p_issue, p_number, p_sur = birth, expiry, issue, number, sur
    forgery = None
    if kind == 'forged_birth':
        p_birth = birth_for_age(rng, today, 15, 16)
        forgery = 'printed birth date of a %d-year-old' % age_on(p_birth, today)
    elif kind == 'forged_expiry':
        p_expiry = today - dt.timedelta(days=rng.randint(10, 3 * 365))
        p_issue = add_years(p_expiry, -valid) + dt.timedelta(days=1)
        forgery = 'printed expiry in the past'
    elif kind == 'forged_number':
        k = rng.choice([2, 3])
        p_number = mutate_chars(number, k, rng)
        forgery = '%d characters of the number changed' % k
    elif kind == 'forged_surname':
        while True:
            s2, _, _, _ = pick_name(nat, sex, rng)
            if tr_name(s2) != tr_name(sur):
                p_sur = s2
                break
        forgery = 'printed surname replaced'
    full_langs = LANGS[cc]
    nl = rng.choice([1, 2, 2, 3])
    langs = list(full_langs[:nl])
    if dtype == 'Passport' and 'en' not in langs:
        langs.append('en')
    if dtype == 'DriverLicense':
        if cc in EU_DL:
            ds = 'dot' if rng.random() < 0.7 else 'slash'
        elif cc == 'usa':
            ds = 'us'
        elif cc == 'can':
            ds = 'ymd'
        else:
            ds = rng.choice(['slash', 'dash', 'mon', 'dot'])
    elif dtype == 'Passport':
        styles = PASSPORT_DATE_STYLE[cc]
        ds = rng.choice(styles) if rng.random() < 0.8 else rng.choice(['mon', 'mon_bi', 'dot', 'slash', 'space'])
    else:
        ds = 'us' if cc == 'usa' else rng.choice(CARD_DATE_STYLE.get(cc, ['dot', 'slash', 'space', 'mon']))
    fd = lambda d: fmt_date(d, ds, langs)
    disp_sur = p_sur
    disp_giv = giv
    if cc == 'ukr' and nat == 'ukr' and cyr_s and rng.random() < 0.6:
        cyr_s2 = cyr_s if p_sur == sur else None
        if cyr_s2:
            disp_sur = cyr_s2 + '/' + p_sur
        if cyr_g:
            disp_giv = cyr_g + '/' + giv
    num_disp = p_number
    if cc == 'bel' and dtype == 'IdCard':
        num_disp = '%s-%s-%s' % (p_number[:3], p_number[3:10], p_number[10:])
    if dtype == 'ResidencePermit' or rng.random() < 0.35:
        nat_disp = nat.upper()
    else:
        nat_disp = NAT_WORD[nat]
    sex_disp = sex
    if cc == 'tur':
        sex_disp = {'M': 'E/M', 'F': 'K/F'}[sex]
    elif cc == 'ukr' and rng.random() < 0.7:
        sex_disp = {'M': 'Ч/M', 'F': 'Ж/F'}[sex]
    elif cc in ('fra', 'bel', 'can') and rng.random() < 0.3:
        sex_disp = sex + '/' + sex
    place = place_of_birth(nat, rng)
    if dtype == 'ResidencePermit' and not place.endswith(nat.upper()):
        place = place + ' ' + nat.upper()
    eye_lang = next((lg for lg in langs if lg in EYES), 'en')
    if us_style:
        height = "%d'-%02d\"" % (rng.randint(5, 6), rng.randint(0, 11))
        eyes = rng.choice(['BRN', 'BLU', 'GRN', 'HAZ', 'GRY'])
    else:
        h = rng.randint(152, 198)
        height = rng.choice(['%d CM' % h, '1,%02d M' % (h - 100), '%d cm' % h])
        eyes = rng.choice(EYES[eye_lang].split())
    ptext = dict(surname=disp_sur, given=disp_giv, number=num_disp, birth=fd(p_birth),
                 expiry=fd(p_expiry), issue=fd(p_issue), nationality=nat_disp, sex=sex_disp,
                 place=place, authority=('USCIS' if (cc == 'usa' and dtype == 'ResidencePermit') else rng.choice(AUTHORITY[cc])),
                 personal=pers_print or '',
                 address=make_address(cc, rng), height=height, eyes=eyes, type='P',
                 code=('D' if cc == 'deu' else cc.upper()), can=_d(rng, 6))
    if dtype == 'ResidencePermit':
        pt, rm = RP_TYPE.get(cc, ('TEMPORARY RESIDENCE', 'WORK PERMITTED'))
        ptext.update(ptype=pt, remarks=rm, remarks2=rm + ' / ' + rng.choice(['', 'FAMILIENNACHZUG', 'ART. 8 CEDH', 'SEE ANNEX']))
    if dtype == 'DriverLicense':
        cats = rng.choice(['B', 'AM/B1/B', 'AM/B', 'A/B/BE', 'B/BE/C1', 'AM/A1/B/B1'])
        ptext.update(categories=cats, cat_issue=fd(p_issue))
        if us_style:
            ptext['categories'] = 'C'
    printed = dict(surname=disp_sur, given=disp_giv, number=num_disp, birth=p_birth.isoformat(),
                   expiry=p_expiry.isoformat(), nationality=nat_disp, sex=sex_disp,
                   issue=p_issue.isoformat(), birth_text=ptext['birth'], expiry_text=ptext['expiry'],
                   issue_text=ptext['issue'])
    # --- layout and style ---------------------------------------------------
    arr = rng.choices(['above', 'left', 'numbered'], weights=[55, 20, 25])[0]
    if dtype == 'DriverLicense':
        layout = 'dl-eu-numbered' if cc in EU_DL else ('dl-us' if cc in US_DL else 'dl-label-left')
        if cc in US_DL:
            langs = ['en'] if cc == 'usa' else ['en', 'fr']
    else:
        layout = '%s-%s' % (fmt.lower(), {'above': 'label-above', 'left': 'label-left', 'numbered': 'numbered'}[arr])
    st = make_style(cc, dtype, rng, arr, langs)
    if dtype == 'ResidencePermit' and cc == 'usa':
        st['title'] = 'PERMANENT RESIDENT CARD'
    doc = dict(dtype=dtype, country=cc, nat=nat, fmt=fmt, mrz=mrz, truth=truth, printed=printed,
               ptext=ptext, layout=layout, style=st, langs=langs, date_style=ds, state=state,
               font=(rng.choice(['ocrb-a', 'ocrb-b']) if mrz else ''),
               booklet=(dtype == 'Passport' and rng.random() < 0.45), forgery=forgery,
               surname_national=sur, given_national=giv)
    return doc


def render_sides(doc, rng, nrng, portrait_src):
    if doc['dtype'] == 'Passport':
        return [('front',) + render_passport(doc, rng, nrng, portrait_src)]
    if doc['dtype'] == 'DriverLicense':
        return [('front',) + render_dl_front(doc, rng, nrng, portrait_src),
                ('back',) + render_dl_back(doc, rng, nrng, portrait_src)]
    return [('front',) + render_card_front(doc, rng, nrng, portrait_src),
            ('back',) + render_card_back(doc, rng, nrng, portrait_src)]


def scan_portraits(d):
    persons = {}
    for fn in sorted(os.listdir(d)):
        m = re.match(r'^(.+)-(\d+)\.png$', fn, re.I)
        if m:
            persons.setdefault(m.group(1), {})[int(m.group(2))] = os.path.join(d, fn)
    return {p: v for p, v in sorted(persons.items()) if 0 in v}


def make_selfie(path, out_path, rng, nrng):
    im = Image.open(path).convert('RGB')
    w, h = im.size
    s = rng.uniform(0.82, 1.0)
    cw, ch = max(8, int(w * s)), max(8, int(h * s))
    x0, y0 = rng.randint(0, w - cw), rng.randint(0, h - ch)
    im = im.crop((x0, y0, x0 + cw, y0 + ch))
    if rng.random() < 0.5:
        im = im.rotate(rng.uniform(-5, 5), resample=BICUBIC, expand=False, fillcolor=im.getpixel((0, 0)))
    target = rng.uniform(480, 1400)
    sc = target / max(im.size)
    im = im.resize((max(8, int(im.size[0] * sc)), max(8, int(im.size[1] * sc))), BICUBIC)
    a = np.asarray(im, np.float32)
    bright = rng.uniform(0.8, 1.2)
    cast = np.array([rng.uniform(0.95, 1.05), 1.0, rng.uniform(0.93, 1.05)], np.float32)
    a = a * bright * cast + nrng.standard_normal(a.shape, dtype=np.float32) * rng.uniform(1, 4)
    im = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    q = rng.randint(78, 95)
    im.save(out_path, 'JPEG', quality=q)
    return dict(brightness=round(bright, 2), scale=round(sc, 2), jpeg_quality=q, size=list(im.size))


def run_case(idx, kind, cond, seed, args, today, persons, out):
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    cid = 's%d-%04d' % (args.seed, idx)
    doc = make_doc(kind, rng, today)
    person = None
    portrait_src = None
    if persons:
        names = list(persons)
        person = rng.choice(names)
        portrait_src = Image.open(persons[person][0]).convert('RGB')
    sides = render_sides(doc, rng, nrng, portrait_src)
    expect, reasons = EXPECT[kind]
    declared_type, declared_country = doc['dtype'], doc['country']
    if kind == 'wrong_type':
        declared_type = 'IdCard' if doc['dtype'] == 'Passport' else 'Passport'
    if kind == 'wrong_country':
        declared_country = rng.choice([c for c in COUNTRIES if c != doc['country']])
    files = {'front': '', 'back': ''}
    photos = {}
    mps = {}
    for side_name, img, meta in sides:
        c = cond
        opts = dict(max_mp=args.max_mp)
        strict = kind in ('genuine', 'other_person', 'licence_adult') or kind.startswith('forged') \
            or kind in ('minor', 'expired', 'wrong_country', 'wrong_type', 'licence_minor', 'licence_expired')
        if strict:
            opts['min_ppm'] = 5.5 if c in ('soft', 'motion', 'lowlight', 'everything', 'phone') else 4.3
        has_mrz = meta.get('mrz') is not None
        if kind in ('cut', 'covered'):
            if has_mrz:
                if kind == 'cut':
                    opts['cut'] = True
                    opts['min_ppm'] = 4.3
                elif c == 'finger':
                    opts['finger'] = True
                    opts['min_ppm'] = 4.3
                else:
                    opts['glare_mrz'] = True
                    opts['min_ppm'] = 4.3
            else:
                c = 'mild'
                opts['min_ppm'] = 4.3
        photo, q, subs, info = photograph(img, meta, rng, nrng, c, opts)
        fn = '%s-%s.jpg' % (cid, side_name)
        photo.save(os.path.join(out, fn), 'JPEG', quality=q, subsampling=subs)
        files[side_name] = fn
        info['mrz_on_this_side'] = has_mrz
        if has_mrz:
            info['mrz_render'] = {k: v for k, v in meta['mrz'].items() if k != 'box_mm'}
        photos[side_name] = info
        mps[side_name] = info['mp']
    selfie = ''
    selfie_info = None
    if persons:
        if kind == 'other_person':
            other = rng.choice([p for p in persons if p != person])
            ks = sorted(k for k in persons[other] if k >= 1) or [0]
            spath = persons[other][rng.choice(ks)]
            selfie_person = other
        else:
            ks = sorted(k for k in persons[person] if k >= 1)
            spath = persons[person][rng.choice(ks)] if ks else None
            selfie_person = person
        if spath:
            selfie = '%s-selfie.jpg' % cid
            selfie_info = make_selfie(spath, os.path.join(out, selfie), rng, nrng)
            selfie_info['person'] = selfie_person
            selfie_info['source'] = os.path.basename(spath)
    notes = []
    notes.append('%s %s issued by %s, holder %s' % (doc['fmt'] or 'no-MRZ', doc['dtype'], doc['country'].upper(), doc['nat'].upper()))
    if doc['booklet']:
        notes.append('open booklet')
    if doc['fmt'] == 'TD2':
        notes.append('TD2: MRZ on the front')
    elif doc['fmt'] == 'TD1':
        notes.append('MRZ on the back')
    if doc['forgery']:
        notes.append('forgery: ' + doc['forgery'])
    if kind == 'wrong_country':
        notes.append('declared country %s, MRZ issuing state %s' % (declared_country, doc['mrz'][0][2:5]))
    if kind == 'wrong_type':
        notes.append('declared %s for a %s' % (declared_type, doc['dtype']))
    for sn, inf in photos.items():
        bits = ['%s: %s' % (sn, inf['condition']), '%.1f MP' % inf['mp'], 'roll %d' % int(round(inf['roll_deg'])),
                'tilt %d' % int(round(inf['tilt_deg'])), '%.1f px/mm' % inf['px_per_mm']]
        if 'mrz_char_height_px' in inf:
            bits.append('MRZ glyphs %.0f px' % inf['mrz_char_height_px'])
        bits.append('q%d' % inf['jpeg_quality'])
        if inf.get('effects'):
            bits.append('+'.join(inf['effects']))
        for key in ('cut', 'finger', 'glare_mrz'):
            if key in inf:
                bits.append('%s %s' % (key, json.dumps(inf[key], ensure_ascii=False)))
        notes.append(', '.join(bits))
    rec = {
        'id': cid, 'case': kind, 'condition': cond, 'expect': expect, 'reasons': list(reasons),
        'type': declared_type, 'country': declared_country, 'front': files['front'], 'back': files['back'],
        'selfie': selfie, 'mrz': doc['mrz'], 'truth': doc['truth'], 'printed': doc['printed'],
        'font': doc['font'], 'layout': doc['layout'], 'mp': mps.get('front', 0.0),
        'notes': '; '.join(notes),
        # extra detail
        'doc_type': doc['dtype'], 'doc_country': doc['country'], 'mrz_format': doc['fmt'] or '',
        'labels': '/'.join(doc['langs']), 'date_style': doc['date_style'],
        'viz_font': os.path.basename(doc['style']['val_font']),
        'surname_national': doc['surname_national'], 'given_national': doc['given_national'],
        'booklet': doc['booklet'], 'mp_back': mps.get('back', 0.0), 'photo': photos,
        'selfie_info': selfie_info, 'person': person,
    }
    return rec


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--n', type=int, default=40)
    ap.add_argument('--today', default=dt.date.today().isoformat())
    ap.add_argument('--portraits')
    ap.add_argument('--cases')
    ap.add_argument('--max-mp', type=float, default=12.0)
    ap.add_argument('--selftest', action='store_true')
    ap.add_argument('--quiet', action='store_true')
    # --only 65,7 writes only those cases (by index) of the --n drawn with
    # --seed, identical to a full run's: a test needs one case, not all.
    ap.add_argument('--only')
    args = ap.parse_args(argv)
    if args.selftest:
        return selftest()
    if not args.out:
        ap.error('--out is required')
    if OCRB is None:
        sys.exit('gen.py: OCR-B font not found (apt-get install fonts-ocr-b)')
    if args.max_mp < 1.0:
        ap.error('--max-mp must be >= 1')
    today = dt.date.fromisoformat(args.today)
    persons = scan_portraits(args.portraits) if args.portraits else {}
    if args.portraits and len(persons) < 1:
        sys.exit('gen.py: no PERSON-K.png files with K=0 in %s' % args.portraits)
    weights = list(CASE_WEIGHTS)
    if args.cases:
        want = [c.strip() for c in args.cases.split(',') if c.strip()]
        unknown = [c for c in want if c not in EXPECT]
        if unknown:
            ap.error('unknown case(s): %s (known: %s)' % (', '.join(unknown), ', '.join(EXPECT)))
        weights = [(c, w) for c, w in CASE_WEIGHTS if c in want]
    if len(persons) < 2:
        if args.cases and 'other_person' in args.cases.split(','):
            ap.error('other_person needs --portraits with at least two people')
        weights = [(c, w) for c, w in weights if c != 'other_person']
    if not weights:
        ap.error('no cases selected')
    os.makedirs(args.out, exist_ok=True)
    master = random.Random(args.seed)
    counts = allocate(args.n, weights)
    kinds = [c for c, _ in weights for _ in range(counts[c])]
    master.shuffle(kinds)
    ng = kinds.count('genuine')
    gconds = (GENUINE_CONDS * (ng // len(GENUINE_CONDS) + 1))[:ng]
    master.shuffle(gconds)
    seeds = [master.getrandbits(63) for _ in kinds]
    conds = []
    gi = 0
    for i, k in enumerate(kinds):
        r = random.Random(seeds[i] ^ 0x5EED)
        if k == 'genuine':
            conds.append(gconds[gi])
            gi += 1
        elif k == 'unreadable':
            conds.append(r.choice(['extreme_blur', 'near_black']))
        elif k == 'covered':
            conds.append(r.choice(['finger', 'glare_mrz']))
        else:
            conds.append(r.choice(OTHER_CONDS))
    manifest = []
    t0 = time.time()
    only = {int(x) for x in args.only.split(',')} if args.only else None
    for i, k in enumerate(kinds):
        if only is not None and i not in only:
            continue
        t1 = time.time()
        rec = run_case(i, k, conds[i], seeds[i], args, today, persons, args.out)
        manifest.append(rec)
        if not args.quiet:
            print('%s %-15s %-12s %-15s %-4s %5.1f MP %5.2fs' % (rec['id'], k, conds[i], rec['doc_type'],
                  rec['doc_country'], rec['mp'], time.time() - t1), flush=True)
    with open(os.path.join(args.out, 'manifest.json'), 'w', encoding='utf-8') as f:
        json.dump(manifest, f, ensure_ascii=False, indent=1)
    if not args.quiet:
        print('wrote %d cases to %s in %.1fs' % (len(manifest), args.out, time.time() - t0))
    return 0


if __name__ == '__main__':
    sys.exit(main())
