"""What the agent says when it holds an action for confirmation, in every language it speaks.

Its own table beside :mod:`addon.i18n.translations` (the same eight languages; a missing one
speaks English): the question ("Unlock the front door? Say yes to confirm."), the answers to
a yes (in a dry run too), to anything else, to a wrong PIN and to too many, and the words that
count as a yes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from addon.i18n.codes import base_language


@dataclass(frozen=True, slots=True)
class ConfirmWords:
    """One language's sentences and yes-words for confirmation."""

    unlock: str
    open: str
    disarm: str
    other: str
    """Any other covered action: ``{action}`` is ``domain.service``."""
    say_yes: str
    say_pin: str
    confirmed: str
    left_locked: str
    left_closed: str
    left_armed: str
    left_alone: str
    wrong_pin: str
    """A wrong PIN: the question still waits for the right one."""
    confirmed_dry_run: str
    """A confirmation performed in a dry run: nothing changed."""
    locked_out: str
    """Too many wrong PINs: ``{minutes}`` of no PIN confirmation."""
    yes: tuple[str, ...]


EN = ConfirmWords(
    unlock="Unlock {name}",
    open="Open {name}",
    disarm="Disarm {name}",
    other="Run {action} on {name}",
    say_yes="{question}? Say yes to confirm.",
    say_pin="{question}? Say the PIN to confirm.",
    confirmed="Done.",
    left_locked="OK, I left it locked.",
    left_closed="OK, I left it closed.",
    left_armed="OK, I left it armed.",
    left_alone="OK, I left it as it is.",
    wrong_pin="That PIN is not right. Say it again to confirm, or no to cancel.",
    confirmed_dry_run="Done, as a dry run: nothing was changed.",
    locked_out="Too many wrong PINs. PIN confirmation is locked for {minutes} minutes.",
    yes=("yes", "yeah", "yep", "confirm", "do it", "go ahead", "ok", "okay", "sure"),
)
DE = ConfirmWords(
    unlock="{name} aufschließen",
    open="{name} öffnen",
    disarm="{name} unscharf schalten",
    other="{action} für {name} ausführen",
    say_yes="{question}? Sag ja, um zu bestätigen.",
    say_pin="{question}? Sag die PIN, um zu bestätigen.",
    confirmed="Erledigt.",
    left_locked="OK, es bleibt abgeschlossen.",
    left_closed="OK, es bleibt geschlossen.",
    left_armed="OK, es bleibt scharf geschaltet.",
    left_alone="OK, ich habe nichts verändert.",
    wrong_pin=(
        "Die PIN stimmt nicht. Sag sie noch einmal, um zu bestätigen, oder nein, um abzubrechen."
    ),
    confirmed_dry_run="Erledigt, als Probelauf: Es wurde nichts verändert.",
    locked_out="Zu viele falsche PINs. Die Bestätigung per PIN ist für {minutes} Minuten gesperrt.",
    yes=("ja", "jawohl", "bestätigen", "bestätige", "mach es", "mach das", "ok", "okay", "klar"),
)
FR = ConfirmWords(
    unlock="Déverrouiller {name}",
    open="Ouvrir {name}",
    disarm="Désarmer {name}",
    other="Exécuter {action} sur {name}",
    say_yes="{question} ? Dites oui pour confirmer.",
    say_pin="{question} ? Dites le code PIN pour confirmer.",
    confirmed="C'est fait.",
    left_locked="D'accord, je laisse verrouillé.",
    left_closed="D'accord, je laisse fermé.",
    left_armed="D'accord, je laisse armé.",
    left_alone="D'accord, je ne change rien.",
    wrong_pin="Ce code PIN n'est pas le bon. Redites-le pour confirmer, ou dites non pour annuler.",
    confirmed_dry_run="C'est fait, en simulation : rien n'a été modifié.",
    locked_out=(
        "Trop de codes PIN erronés."
        " La confirmation par code PIN est bloquée pendant {minutes} minutes."
    ),
    yes=("oui", "ouais", "confirmer", "je confirme", "vas-y", "d'accord", "ok"),
)
ES = ConfirmWords(
    unlock="¿Desbloquear {name}",
    open="¿Abrir {name}",
    disarm="¿Desarmar {name}",
    other="¿Ejecutar {action} en {name}",
    say_yes="{question}? Di sí para confirmar.",
    say_pin="{question}? Di el PIN para confirmar.",
    confirmed="Hecho.",
    left_locked="De acuerdo, lo dejo cerrado con llave.",
    left_closed="De acuerdo, lo dejo cerrado.",
    left_armed="De acuerdo, la dejo armada.",
    left_alone="De acuerdo, no cambio nada.",
    wrong_pin="Ese PIN no es correcto. Dilo otra vez para confirmar, o di no para cancelar.",
    confirmed_dry_run="Hecho, como simulación: no se ha cambiado nada.",
    locked_out=(
        "Demasiados PIN incorrectos."
        " La confirmación por PIN queda bloqueada durante {minutes} minutos."
    ),
    yes=("sí", "si", "confirmo", "confirmar", "hazlo", "adelante", "vale", "ok"),
)
NL = ConfirmWords(
    unlock="{name} ontgrendelen",
    open="{name} openen",
    disarm="{name} uitschakelen",
    other="{action} uitvoeren op {name}",
    say_yes="{question}? Zeg ja om te bevestigen.",
    say_pin="{question}? Zeg de pincode om te bevestigen.",
    confirmed="Klaar.",
    left_locked="Oké, het blijft op slot.",
    left_closed="Oké, het blijft dicht.",
    left_armed="Oké, het blijft ingeschakeld.",
    left_alone="Oké, ik heb niets veranderd.",
    wrong_pin=(
        "Die pincode klopt niet. Zeg hem nog eens om te bevestigen, of zeg nee om te annuleren."
    ),
    confirmed_dry_run="Klaar, als proefrun: er is niets veranderd.",
    locked_out=(
        "Te veel verkeerde pincodes. Bevestigen met een pincode is {minutes} minuten geblokkeerd."
    ),
    yes=("ja", "jazeker", "bevestig", "bevestigen", "doe maar", "oké", "ok"),
)
IT = ConfirmWords(
    unlock="Sbloccare {name}",
    open="Aprire {name}",
    disarm="Disattivare {name}",
    other="Eseguire {action} su {name}",
    say_yes="{question}? Di sì per confermare.",
    say_pin="{question}? Di il PIN per confermare.",
    confirmed="Fatto.",
    left_locked="Va bene, lo lascio chiuso a chiave.",
    left_closed="Va bene, lo lascio chiuso.",
    left_armed="Va bene, lo lascio inserito.",
    left_alone="Va bene, non cambio nulla.",
    wrong_pin="Il PIN non è corretto. Ripetilo per confermare, o di' no per annullare.",
    confirmed_dry_run="Fatto, come prova: non è stato cambiato nulla.",
    locked_out="Troppi PIN errati. La conferma con PIN è bloccata per {minutes} minuti.",
    yes=("sì", "si", "confermo", "conferma", "fallo", "vai", "va bene", "ok"),
)
PL = ConfirmWords(
    unlock="Odblokować {name}",
    open="Otworzyć {name}",
    disarm="Rozbroić {name}",
    other="Wykonać {action} dla {name}",
    say_yes="{question}? Powiedz tak, aby potwierdzić.",
    say_pin="{question}? Powiedz PIN, aby potwierdzić.",
    confirmed="Zrobione.",
    left_locked="Dobrze, pozostaje zamknięte na klucz.",
    left_closed="Dobrze, pozostaje zamknięte.",
    left_armed="Dobrze, pozostaje uzbrojone.",
    left_alone="Dobrze, niczego nie zmieniono.",
    wrong_pin=(
        "Ten PIN jest nieprawidłowy."
        " Powiedz go jeszcze raz, aby potwierdzić, albo nie, aby anulować."
    ),
    confirmed_dry_run="Zrobione, jako próba: niczego nie zmieniono.",
    locked_out=(
        "Zbyt wiele błędnych PIN-ów. Potwierdzanie PIN-em jest zablokowane na {minutes} minut."
    ),
    yes=("tak", "potwierdzam", "potwierdź", "zrób to", "dobrze", "ok"),
)
PT = ConfirmWords(
    unlock="Destrancar {name}",
    open="Abrir {name}",
    disarm="Desarmar {name}",
    other="Executar {action} em {name}",
    say_yes="{question}? Diga sim para confirmar.",
    say_pin="{question}? Diga o PIN para confirmar.",
    confirmed="Feito.",
    left_locked="Está bem, fica trancado.",
    left_closed="Está bem, fica fechado.",
    left_armed="Está bem, fica armado.",
    left_alone="Está bem, não mudei nada.",
    wrong_pin=(
        "Esse PIN não está certo. Diga-o outra vez para confirmar, ou diga não para cancelar."
    ),
    confirmed_dry_run="Feito, como teste: não mudei nada.",
    locked_out=(
        "Demasiados PIN errados. A confirmação por PIN está bloqueada durante {minutes} minutos."
    ),
    yes=("sim", "confirmo", "confirmar", "pode", "faz isso", "ok", "está bem"),
)

TABLE: Mapping[str, ConfirmWords] = MappingProxyType(
    {"en": EN, "de": DE, "fr": FR, "es": ES, "nl": NL, "it": IT, "pl": PL, "pt": PT}
)
"""Confirmation words by language code without region; English for any other."""

_PUNCTUATION = re.compile(r"[^\w\s'-]+")


def words_for(language: str | None) -> ConfirmWords:
    """The confirmation words of ``language`` ("de-CH" reads as "de"), else English."""
    return TABLE.get(base_language(language or "en"), EN)


def says_yes(text: str, language: str | None) -> bool:
    """Whether ``text`` is a yes in ``language`` (or in English): the whole utterance, no more."""
    said = " ".join(_PUNCTUATION.sub(" ", text.casefold()).split())
    if not said:
        return False
    return said in words_for(language).yes or said in EN.yes


def question(service: str, domain: str, names: str, pin: bool, language: str | None) -> str:
    """The question that holds ``domain.service`` on ``names``."""
    words = words_for(language)
    if service in ("unlock",) and domain == "lock":
        asked = words.unlock.format(name=names)
    elif service == "alarm_disarm":
        asked = words.disarm.format(name=names)
    elif service in ("open", "open_cover", "toggle", "set_cover_position", "open_valve"):
        asked = words.open.format(name=names)
    else:
        asked = words.other.format(action=f"{domain}.{service}", name=names)
    return (words.say_pin if pin else words.say_yes).format(question=asked)


def left_as_it_was(domain: str, language: str | None) -> str:
    """What a cancellation says: "OK, I left it locked." and its kin."""
    words = words_for(language)
    if domain == "lock":
        return words.left_locked
    if domain in ("cover", "valve"):
        return words.left_closed
    if domain == "alarm_control_panel":
        return words.left_armed
    return words.left_alone
