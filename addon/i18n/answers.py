"""Yes and no in every language the local path serves, for answering a held action's question.

Home Agent speaks eight languages of its own (:mod:`addon.i18n.confirmation` has their
sentences and answer words); the local path serves every language Home Assistant ships
sentences for. A person speaking one of those others hears the question in English, and must
still be able to answer in their own language: "nej" cancels in Swedish, "ja" confirms. Without
this table their "no" would be taken for a new request (the question cancelled, the word sent on
as a request), and their "yes" could not confirm at all.

The whole utterance is compared (after punctuation and case are folded), never a word in it, so
a request that starts with one of these words stays a request. Yes-words are kept to words that
mean only yes or confirm: a yes performs the held action. Cornish (``kw``) answers with an echo
of the question's verb, not a word for yes, so it answers in English.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True, slots=True)
class AnswerWords:
    """One language's words for yes, and for no, cancel and stop."""

    yes: tuple[str, ...]
    no: tuple[str, ...]


ANSWERS: Mapping[str, AnswerWords] = MappingProxyType(
    {
        "af": AnswerWords(("ja", "ja seker", "bevestig"), ("nee", "kanselleer", "stop", "los dit")),
        "ar": AnswerWords(("نعم", "أجل", "موافق"), ("لا", "إلغاء", "الغاء", "ألغ", "توقف", "قف")),
        "bg": AnswerWords(
            ("да", "добре", "потвърждавам"), ("не", "откажи", "отказ", "спри", "стоп")
        ),
        "bn": AnswerWords(("হ্যাঁ", "হাঁ"), ("না", "বাতিল", "বাতিল করো", "থামো")),
        "ca": AnswerWords(
            ("sí", "si", "d'acord", "endavant", "confirmo"),
            ("no", "cancel·la", "cancel·lar", "atura", "para", "deixa-ho"),
        ),
        "cs": AnswerWords(
            ("ano", "jo", "potvrzuji", "potvrdit"),
            ("ne", "zrušit", "zruš", "stop", "přestaň", "nech to být"),
        ),
        "cy": AnswerWords(("ie", "iawn"), ("na", "naddo", "canslo", "stopio", "stop")),
        "da": AnswerWords(
            ("ja", "jo", "ok", "bekræft"), ("nej", "annuller", "annullér", "stop", "glem det")
        ),
        "el": AnswerWords(
            ("ναι", "εντάξει", "βεβαίως"), ("όχι", "ακύρωση", "ακύρωσε", "σταμάτα", "στοπ")
        ),
        "et": AnswerWords(("jah", "jaa", "olgu"), ("ei", "tühista", "katkesta", "stopp")),
        "eu": AnswerWords(("bai", "ados"), ("ez", "utzi", "ezeztatu", "gelditu")),
        "fa": AnswerWords(("بله", "آره", "باشه"), ("نه", "خیر", "لغو", "لغو کن", "توقف")),
        "fi": AnswerWords(("kyllä", "joo", "juu", "vahvista"), ("ei", "peruuta", "lopeta", "seis")),
        "ga": AnswerWords(("sea", "is ea"), ("ní hea", "níl", "cealaigh", "stop", "stad")),
        "gl": AnswerWords(
            ("si", "sí", "vale", "de acordo"), ("non", "cancelar", "cancela", "para", "detén")
        ),
        "gu": AnswerWords(("હા", "હાં"), ("ના", "રદ કરો", "બંધ કરો")),
        "he": AnswerWords(("כן", "בסדר", "אישור"), ("לא", "ביטול", "בטל", "עצור")),
        "hi": AnswerWords(("हाँ", "हां", "ठीक है"), ("नहीं", "नही", "रद्द करो", "रद्द", "रुको")),
        "hr": AnswerWords(("da", "može", "potvrdi"), ("ne", "odustani", "otkaži", "stani", "stop")),
        "hu": AnswerWords(
            ("igen", "rendben", "oké"), ("nem", "mégse", "mégsem", "töröld", "állj", "stop")
        ),
        "hy": AnswerWords(("այո", "հա", "լավ"), ("ոչ", "չէ", "չեղարկել", "կանգնիր")),
        "id": AnswerWords(
            ("ya", "iya", "oke", "baik"),
            ("tidak", "nggak", "enggak", "batal", "batalkan", "berhenti", "stop"),
        ),
        "is": AnswerWords(("já", "ja"), ("nei", "hætta við", "hættu", "stopp")),
        "ja": AnswerWords(
            ("はい", "ええ", "うん", "お願いします"),
            ("いいえ", "いや", "キャンセル", "やめて", "止めて", "ストップ"),
        ),
        "ka": AnswerWords(("კი", "დიახ", "ჰო"), ("არა", "გაუქმება", "გააუქმე", "გაჩერდი")),
        "kn": AnswerWords(("ಹೌದು",), ("ಇಲ್ಲ", "ಬೇಡ", "ರದ್ದು", "ರದ್ದುಮಾಡು", "ನಿಲ್ಲಿಸು")),
        "ko": AnswerWords(("네", "예", "응"), ("아니", "아니요", "아니오", "취소", "그만", "멈춰")),
        "lb": AnswerWords(("jo", "ok"), ("nee", "ofbriechen", "stop", "stopp")),
        "lt": AnswerWords(("taip", "gerai"), ("ne", "atšaukti", "atšauk", "sustok", "stop")),
        "lv": AnswerWords(("jā", "labi"), ("nē", "atcelt", "atcel", "apstāties", "stop")),
        "ml": AnswerWords(("അതെ", "ശരി"), ("ഇല്ല", "വേണ്ട", "റദ്ദാക്കുക", "നിർത്തുക")),
        "mn": AnswerWords(("тийм", "за"), ("үгүй", "цуцлах", "болих", "зогс")),
        "ms": AnswerWords(("ya", "baik", "ok"), ("tidak", "tak", "batal", "batalkan", "berhenti")),
        "nb": AnswerWords(("ja", "jo", "ok", "bekreft"), ("nei", "avbryt", "stopp", "glem det")),
        "ne": AnswerWords(("हो", "हुन्छ"), ("होइन", "हैन", "रद्द गर", "रोक")),
        "pa": AnswerWords(("ਹਾਂ", "ਹਾਂਜੀ"), ("ਨਹੀਂ", "ਰੱਦ ਕਰੋ", "ਰੋਕੋ")),
        "ro": AnswerWords(
            ("da", "sigur", "confirm"),
            ("nu", "anulează", "anuleaza", "oprește", "opreste", "stop"),
        ),
        "ru": AnswerWords(
            ("да", "ага", "подтверждаю", "хорошо"), ("нет", "отмена", "отмени", "стоп", "хватит")
        ),
        "sk": AnswerWords(
            ("áno", "ano", "hej", "potvrdzujem"), ("nie", "zrušiť", "zruš", "stop", "prestaň")
        ),
        "sl": AnswerWords(("da", "ja", "potrdi"), ("ne", "prekliči", "ustavi", "stop")),
        "sr": AnswerWords(
            ("да", "da", "може", "može"),
            ("не", "ne", "откажи", "otkaži", "стани", "stani", "стоп", "stop"),
        ),
        "sv": AnswerWords(("ja", "japp", "ok", "bekräfta"), ("nej", "avbryt", "stopp", "glöm det")),
        "sw": AnswerWords(("ndiyo", "sawa"), ("hapana", "ghairi", "acha", "simama")),
        "ta": AnswerWords(("ஆம்", "சரி"), ("இல்லை", "வேண்டாம்", "ரத்து", "நிறுத்து")),
        "te": AnswerWords(("అవును", "సరే"), ("కాదు", "వద్దు", "రద్దు", "ఆపు")),
        "th": AnswerWords(("ใช่", "ตกลง"), ("ไม่", "ไม่ใช่", "ยกเลิก", "หยุด")),
        "tr": AnswerWords(
            ("evet", "tamam", "onayla"), ("hayır", "hayir", "iptal", "iptal et", "dur", "vazgeç")
        ),
        "uk": AnswerWords(
            ("так", "гаразд", "підтверджую"), ("ні", "скасувати", "скасуй", "стоп", "зупинись")
        ),
        "ur": AnswerWords(("ہاں", "جی ہاں", "جی"), ("نہیں", "منسوخ", "منسوخ کرو", "رکو")),
        "vi": AnswerWords(
            ("có", "vâng", "ừ", "đồng ý", "ok"), ("không", "hủy", "huỷ", "dừng", "dừng lại")
        ),
        "zh": AnswerWords(
            ("是", "是的", "好", "好的", "确认", "確認", "对", "對"),
            ("不", "不是", "不要", "取消", "停", "停止", "算了"),
        ),
    }
)
"""Answer words by language code without region or script ("zh" for zh-CN, zh-HK, zh-TW;
"sr" in both its scripts), for the languages without sentences of Home Agent's own."""
