"""What the agent says when it holds an action for confirmation, in every language it speaks.

Its own table beside :mod:`addon.i18n.translations` (the same eight languages; a missing one
speaks English): the question, named as a person would say it ("Unlock the Front Door? Say yes
to confirm.", never a service id, which a satellite would read aloud), the answers to a yes (in
a dry run too), to a no (saying what is true now: "OK, the Front Door is still locked." only
when it is), to a wrong PIN and to too many, and the words that count as a yes or a no (in the
other languages the local path serves, those of :mod:`addon.i18n.answers`). Anything else said
to a question is a new request (:func:`addon.agent.confirm.supersedes`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

from addon.i18n.answers import ANSWERS
from addon.i18n.codes import base_language


@dataclass(frozen=True, slots=True)
class ConfirmWords:
    """One language's sentences, yes-words and no-words for confirmation.

    The action phrases take ``{name}`` (the entities' names); ``arm`` takes ``{mode}`` too.
    """

    unlock: str
    lock: str
    open: str
    close: str
    disarm: str
    arm: str
    turn_on: str
    turn_off: str
    activate: str
    """A scene."""
    run: str
    """A script, or an automation triggered."""
    other: str
    """Any other covered action: a neutral verb, never the service's id."""
    create_automation: str
    """A drafted automation waiting for approval: ``{name}`` is its summary in plain words."""
    modes: Mapping[str, str]
    """An alarm panel's arming modes (``away``, ``home``, ``night``, ``vacation``...)."""
    say_yes: str
    say_pin: str
    confirmed: str
    still_locked: str
    still_closed: str
    still_armed: str
    still_locked_many: str
    """The same, for several held entities ("the Front Door and Back Door are still locked")."""
    still_closed_many: str
    still_armed_many: str
    left_alone: str
    """A cancel where what is true now cannot be said more precisely: nothing was changed."""
    wrong_pin: str
    """A wrong PIN: the question still waits for the right one."""
    confirmed_dry_run: str
    """A confirmation performed in a dry run: nothing changed."""
    locked_out: str
    """Too many wrong PINs: ``{minutes}`` of no PIN confirmation."""
    yes: tuple[str, ...]
    no: tuple[str, ...]
    """Words that cancel (the whole utterance); anything else is a new request."""
    and_: str
    """What joins the last two names of a list, or two actions: "and"."""
    kinds: Mapping[str, str]
    """What an area, floor, device or label is called, after a group's name: "Hall (area)"."""
    lower_after_first: bool = True
    """Whether an action phrase after the first starts in lower case ("…and open the Garage
    Door"); not in German, whose phrases start with a noun."""


EN = ConfirmWords(
    create_automation=(
        "I drafted an automation: {name}. It waits for your approval. Create it now"
    ),
    unlock="Unlock the {name}",
    lock="Lock the {name}",
    open="Open the {name}",
    close="Close the {name}",
    disarm="Disarm the {name}",
    arm="Arm the {name} alarm ({mode})",
    turn_on="Turn on the {name}",
    turn_off="Turn off the {name}",
    activate="Activate {name}",
    run="Run {name}",
    other="Change the {name}",
    modes=MappingProxyType(
        {
            "away": "away",
            "home": "home",
            "night": "night",
            "vacation": "vacation",
            "custom_bypass": "custom bypass",
        }
    ),
    say_yes="{question}? Say yes to confirm.",
    say_pin="{question}? Say the PIN to confirm.",
    confirmed="Done.",
    still_locked="OK, the {name} is still locked.",
    still_closed="OK, the {name} is still closed.",
    still_armed="OK, the {name} alarm is still armed.",
    still_locked_many="OK, the {name} are still locked.",
    still_closed_many="OK, the {name} are still closed.",
    still_armed_many="OK, the {name} alarms are still armed.",
    left_alone="OK, I didn't change anything.",
    wrong_pin="That PIN is not right. Say it again to confirm, or no to cancel.",
    confirmed_dry_run="Done, as a dry run: nothing was changed.",
    locked_out="Too many wrong PINs. PIN confirmation is locked for {minutes} minutes.",
    yes=("yes", "yeah", "yep", "confirm", "do it", "go ahead", "ok", "okay", "sure"),
    no=("no", "nope", "cancel", "stop", "don't", "do not", "never mind", "no thanks", "abort"),
    and_="and",
    kinds=MappingProxyType(
        {"area": "area", "floor": "floor", "device": "device", "label": "label"}
    ),
)

DE = ConfirmWords(
    create_automation=(
        "Ich habe eine Automatisierung entworfen: {name}. "
        "Sie wartet auf deine Freigabe. Jetzt anlegen"
    ),
    unlock="{name} aufschließen",
    lock="{name} abschließen",
    open="{name} öffnen",
    close="{name} schließen",
    disarm="{name} unscharf schalten",
    arm="Alarm {name} scharf schalten ({mode})",
    turn_on="{name} einschalten",
    turn_off="{name} ausschalten",
    activate="{name} aktivieren",
    run="{name} ausführen",
    other="{name} ändern",
    modes=MappingProxyType(
        {
            "away": "abwesend",
            "home": "zu Hause",
            "night": "Nacht",
            "vacation": "Urlaub",
            "custom_bypass": "benutzerdefiniert",
        }
    ),
    say_yes="{question}? Sag ja, um zu bestätigen.",
    say_pin="{question}? Sag die PIN, um zu bestätigen.",
    confirmed="Erledigt.",
    still_locked="OK, {name} ist weiterhin abgeschlossen.",
    still_closed="OK, {name} ist weiterhin geschlossen.",
    still_armed="OK, {name} ist weiterhin scharf geschaltet.",
    still_locked_many="OK, {name} sind weiterhin abgeschlossen.",
    still_closed_many="OK, {name} sind weiterhin geschlossen.",
    still_armed_many="OK, {name} sind weiterhin scharf geschaltet.",
    left_alone="OK, ich habe nichts verändert.",
    wrong_pin=(
        "Die PIN stimmt nicht. Sag sie noch einmal, um zu bestätigen, oder nein, um abzubrechen."
    ),
    confirmed_dry_run="Erledigt, als Probelauf: Es wurde nichts verändert.",
    locked_out="Zu viele falsche PINs. Die Bestätigung per PIN ist für {minutes} Minuten gesperrt.",
    yes=("ja", "jawohl", "bestätigen", "bestätige", "mach es", "mach das", "ok", "okay", "klar"),
    no=("nein", "nee", "abbrechen", "abbruch", "stopp", "stop", "lass es", "vergiss es"),
    and_="und",
    lower_after_first=False,
    kinds=MappingProxyType(
        {"area": "Bereich", "floor": "Etage", "device": "Gerät", "label": "Label"}
    ),
)

FR = ConfirmWords(
    create_automation=(
        "J'ai préparé une automatisation : {name}. Elle attend votre accord. La créer maintenant"
    ),
    unlock="Déverrouiller {name}",
    lock="Verrouiller {name}",
    open="Ouvrir {name}",
    close="Fermer {name}",
    disarm="Désarmer {name}",
    arm="Armer l'alarme {name} ({mode})",
    turn_on="Allumer {name}",
    turn_off="Éteindre {name}",
    activate="Activer {name}",
    run="Lancer {name}",
    other="Modifier {name}",
    modes=MappingProxyType(
        {
            "away": "absent",
            "home": "à la maison",
            "night": "nuit",
            "vacation": "vacances",
            "custom_bypass": "personnalisé",
        }
    ),
    say_yes="{question} ? Dites oui pour confirmer.",
    say_pin="{question} ? Dites le code PIN pour confirmer.",
    confirmed="C'est fait.",
    still_locked="D'accord, {name} reste verrouillé.",
    still_closed="D'accord, {name} reste fermé.",
    still_armed="D'accord, {name} reste armé.",
    still_locked_many="D'accord, {name} restent verrouillés.",
    still_closed_many="D'accord, {name} restent fermés.",
    still_armed_many="D'accord, {name} restent armés.",
    left_alone="D'accord, je ne change rien.",
    wrong_pin="Ce code PIN n'est pas le bon. Redites-le pour confirmer, ou dites non pour annuler.",
    confirmed_dry_run="C'est fait, en simulation : rien n'a été modifié.",
    locked_out=(
        "Trop de codes PIN erronés."
        " La confirmation par code PIN est bloquée pendant {minutes} minutes."
    ),
    yes=("oui", "ouais", "confirmer", "je confirme", "vas-y", "d'accord", "ok"),
    no=("non", "annuler", "annule", "arrête", "stop", "laisse tomber"),
    and_="et",
    kinds=MappingProxyType(
        {"area": "pièce", "floor": "étage", "device": "appareil", "label": "étiquette"}
    ),
)

ES = ConfirmWords(
    create_automation=(
        "He preparado una automatización: {name}. Espera tu aprobación. ¿Crearla ahora"
    ),
    unlock="¿Desbloquear {name}",
    lock="¿Bloquear {name}",
    open="¿Abrir {name}",
    close="¿Cerrar {name}",
    disarm="¿Desarmar {name}",
    arm="¿Armar la alarma {name} ({mode})",
    turn_on="¿Encender {name}",
    turn_off="¿Apagar {name}",
    activate="¿Activar {name}",
    run="¿Ejecutar {name}",
    other="¿Cambiar {name}",
    modes=MappingProxyType(
        {
            "away": "ausente",
            "home": "en casa",
            "night": "noche",
            "vacation": "vacaciones",
            "custom_bypass": "personalizado",
        }
    ),
    say_yes="{question}? Di sí para confirmar.",
    say_pin="{question}? Di el PIN para confirmar.",
    confirmed="Hecho.",
    still_locked="De acuerdo, {name} sigue cerrado con llave.",
    still_closed="De acuerdo, {name} sigue cerrado.",
    still_armed="De acuerdo, {name} sigue armada.",
    still_locked_many="De acuerdo, {name} siguen cerrados con llave.",
    still_closed_many="De acuerdo, {name} siguen cerrados.",
    still_armed_many="De acuerdo, {name} siguen armadas.",
    left_alone="De acuerdo, no cambio nada.",
    wrong_pin="Ese PIN no es correcto. Dilo otra vez para confirmar, o di no para cancelar.",
    confirmed_dry_run="Hecho, como simulación: no se ha cambiado nada.",
    locked_out=(
        "Demasiados PIN incorrectos."
        " La confirmación por PIN queda bloqueada durante {minutes} minutos."
    ),
    yes=("sí", "si", "confirmo", "confirmar", "hazlo", "adelante", "vale", "ok"),
    no=("no", "cancelar", "cancela", "para", "detente", "déjalo", "olvídalo"),
    and_="y",
    kinds=MappingProxyType(
        {"area": "área", "floor": "planta", "device": "dispositivo", "label": "etiqueta"}
    ),
)

NL = ConfirmWords(
    create_automation=(
        "Ik heb een automatisering opgesteld: {name}. Die wacht op je goedkeuring. Nu aanmaken"
    ),
    unlock="{name} ontgrendelen",
    lock="{name} vergrendelen",
    open="{name} openen",
    close="{name} sluiten",
    disarm="{name} uitschakelen",
    arm="Alarm {name} inschakelen ({mode})",
    turn_on="{name} aanzetten",
    turn_off="{name} uitzetten",
    activate="{name} activeren",
    run="{name} uitvoeren",
    other="{name} wijzigen",
    modes=MappingProxyType(
        {
            "away": "afwezig",
            "home": "thuis",
            "night": "nacht",
            "vacation": "vakantie",
            "custom_bypass": "aangepast",
        }
    ),
    say_yes="{question}? Zeg ja om te bevestigen.",
    say_pin="{question}? Zeg de pincode om te bevestigen.",
    confirmed="Klaar.",
    still_locked="Oké, {name} blijft op slot.",
    still_closed="Oké, {name} blijft dicht.",
    still_armed="Oké, {name} blijft ingeschakeld.",
    still_locked_many="Oké, {name} blijven op slot.",
    still_closed_many="Oké, {name} blijven dicht.",
    still_armed_many="Oké, {name} blijven ingeschakeld.",
    left_alone="Oké, ik heb niets veranderd.",
    wrong_pin=(
        "Die pincode klopt niet. Zeg hem nog eens om te bevestigen, of zeg nee om te annuleren."
    ),
    confirmed_dry_run="Klaar, als proefrun: er is niets veranderd.",
    locked_out=(
        "Te veel verkeerde pincodes. Bevestigen met een pincode is {minutes} minuten geblokkeerd."
    ),
    yes=("ja", "jazeker", "bevestig", "bevestigen", "doe maar", "oké", "ok"),
    no=("nee", "neen", "annuleer", "annuleren", "stop", "laat maar"),
    and_="en",
    kinds=MappingProxyType(
        {"area": "ruimte", "floor": "verdieping", "device": "apparaat", "label": "label"}
    ),
)

IT = ConfirmWords(
    create_automation=(
        "Ho preparato un'automazione: {name}. Attende la tua approvazione. Crearla adesso"
    ),
    unlock="Sbloccare {name}",
    lock="Bloccare {name}",
    open="Aprire {name}",
    close="Chiudere {name}",
    disarm="Disattivare {name}",
    arm="Inserire l'allarme {name} ({mode})",
    turn_on="Accendere {name}",
    turn_off="Spegnere {name}",
    activate="Attivare {name}",
    run="Eseguire {name}",
    other="Modificare {name}",
    modes=MappingProxyType(
        {
            "away": "fuori casa",
            "home": "in casa",
            "night": "notte",
            "vacation": "vacanza",
            "custom_bypass": "personalizzato",
        }
    ),
    say_yes="{question}? Di sì per confermare.",
    say_pin="{question}? Di il PIN per confermare.",
    confirmed="Fatto.",
    still_locked="Va bene, {name} resta chiuso a chiave.",
    still_closed="Va bene, {name} resta chiuso.",
    still_armed="Va bene, {name} resta inserito.",
    still_locked_many="Va bene, {name} restano chiusi a chiave.",
    still_closed_many="Va bene, {name} restano chiusi.",
    still_armed_many="Va bene, {name} restano inseriti.",
    left_alone="Va bene, non cambio nulla.",
    wrong_pin="Il PIN non è corretto. Ripetilo per confermare, o di' no per annullare.",
    confirmed_dry_run="Fatto, come prova: non è stato cambiato nulla.",
    locked_out="Troppi PIN errati. La conferma con PIN è bloccata per {minutes} minuti.",
    yes=("sì", "si", "confermo", "conferma", "fallo", "vai", "va bene", "ok"),
    no=("no", "annulla", "annullare", "ferma", "fermati", "stop", "lascia stare"),
    and_="e",
    kinds=MappingProxyType(
        {"area": "area", "floor": "piano", "device": "dispositivo", "label": "etichetta"}
    ),
)

PL = ConfirmWords(
    create_automation=(
        "Przygotowałem automatyzację: {name}. Czeka na zatwierdzenie. Utworzyć ją teraz"
    ),
    unlock="Odblokować {name}",
    lock="Zablokować {name}",
    open="Otworzyć {name}",
    close="Zamknąć {name}",
    disarm="Rozbroić {name}",
    arm="Uzbroić alarm {name} ({mode})",
    turn_on="Włączyć {name}",
    turn_off="Wyłączyć {name}",
    activate="Aktywować {name}",
    run="Uruchomić {name}",
    other="Zmienić {name}",
    modes=MappingProxyType(
        {
            "away": "poza domem",
            "home": "w domu",
            "night": "noc",
            "vacation": "urlop",
            "custom_bypass": "niestandardowy",
        }
    ),
    say_yes="{question}? Powiedz tak, aby potwierdzić.",
    say_pin="{question}? Powiedz PIN, aby potwierdzić.",
    confirmed="Zrobione.",
    still_locked="Dobrze, {name} pozostaje zamknięte na klucz.",
    still_closed="Dobrze, {name} pozostaje zamknięte.",
    still_armed="Dobrze, {name} pozostaje uzbrojone.",
    still_locked_many="Dobrze, {name} pozostają zamknięte na klucz.",
    still_closed_many="Dobrze, {name} pozostają zamknięte.",
    still_armed_many="Dobrze, {name} pozostają uzbrojone.",
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
    no=("nie", "anuluj", "stop", "przestań", "zostaw", "nieważne"),
    and_="i",
    kinds=MappingProxyType(
        {"area": "obszar", "floor": "piętro", "device": "urządzenie", "label": "etykieta"}
    ),
)

PT = ConfirmWords(
    create_automation=("Preparei uma automação: {name}. Aguarda a sua aprovação. Criá-la agora"),
    unlock="Destrancar {name}",
    lock="Trancar {name}",
    open="Abrir {name}",
    close="Fechar {name}",
    disarm="Desarmar {name}",
    arm="Armar o alarme {name} ({mode})",
    turn_on="Ligar {name}",
    turn_off="Desligar {name}",
    activate="Ativar {name}",
    run="Executar {name}",
    other="Alterar {name}",
    modes=MappingProxyType(
        {
            "away": "ausente",
            "home": "em casa",
            "night": "noite",
            "vacation": "férias",
            "custom_bypass": "personalizado",
        }
    ),
    say_yes="{question}? Diga sim para confirmar.",
    say_pin="{question}? Diga o PIN para confirmar.",
    confirmed="Feito.",
    still_locked="Está bem, {name} continua trancado.",
    still_closed="Está bem, {name} continua fechado.",
    still_armed="Está bem, {name} continua armado.",
    still_locked_many="Está bem, {name} continuam trancados.",
    still_closed_many="Está bem, {name} continuam fechados.",
    still_armed_many="Está bem, {name} continuam armados.",
    left_alone="Está bem, não mudei nada.",
    wrong_pin=(
        "Esse PIN não está certo. Diga-o outra vez para confirmar, ou diga não para cancelar."
    ),
    confirmed_dry_run="Feito, como teste: não mudei nada.",
    locked_out=(
        "Demasiados PIN errados. A confirmação por PIN está bloqueada durante {minutes} minutos."
    ),
    yes=("sim", "confirmo", "confirmar", "pode", "faz isso", "ok", "está bem"),
    no=("não", "nao", "cancelar", "cancela", "pare", "parar", "deixa"),
    and_="e",
    kinds=MappingProxyType(
        {"area": "área", "floor": "andar", "device": "dispositivo", "label": "etiqueta"}
    ),
)


TABLE: Mapping[str, ConfirmWords] = MappingProxyType(
    {"en": EN, "de": DE, "fr": FR, "es": ES, "nl": NL, "it": IT, "pl": PL, "pt": PT}
)
"""Confirmation words by language code without region; English for any other."""

_THE_THE = re.compile(r"\b(the) the\b", re.IGNORECASE)
"""English names often start with "the" themselves: "Open the The Shed" reads "Open the Shed"."""

OPENS = frozenset({"open", "open_cover", "toggle", "set_cover_position", "open_valve"})
"""Services a question calls opening (a toggle of a closed garage door opens it)."""
CLOSES = frozenset({"close_cover", "close_valve"})


def words_for(language: str | None) -> ConfirmWords:
    """The confirmation words of ``language`` ("de-CH" reads as "de"), else English."""
    return TABLE.get(base_language(language or "en"), EN)


def _said(text: str) -> str:
    """``text`` folded for comparing: case, punctuation and symbols (not ' or -) and spacing.

    By Unicode category, so the vowel signs of Devanagari, Tamil or Thai stay in their words.
    """
    kept = (
        " " if unicodedata.category(char)[0] in "PS" and char not in "'-" else char
        for char in text.casefold()
    )
    return " ".join("".join(kept).split())


@cache
def _answers(language: str) -> tuple[frozenset[str], frozenset[str]]:
    """The yes-words and no-words that answer in ``language`` (a base code), English's too.

    Home Agent's own eight languages, else the answer words of any language the local path
    serves (:mod:`addon.i18n.answers`), each folded as an utterance is.
    """
    own = TABLE.get(language)
    other = ANSWERS.get(language)
    yes = [*EN.yes, *(own.yes if own else other.yes if other else ())]
    no = [*EN.no, *(own.no if own else other.no if other else ())]
    return frozenset(map(_said, yes)), frozenset(map(_said, no))


def yes_and_no(language: str | None) -> tuple[str, str]:
    """The words for yes and for no in ``language`` ("ja", "nej" in Swedish), else English's."""
    code = base_language(language or "en")
    words = TABLE.get(code) or ANSWERS.get(code) or EN
    return words.yes[0], words.no[0]


def says_yes(text: str, language: str | None) -> bool:
    """Whether ``text`` is a yes in ``language`` (or in English): the whole utterance, no more."""
    said = _said(text)
    return bool(said) and said in _answers(base_language(language or "en"))[0]


def says_no(text: str, language: str | None) -> bool:
    """Whether ``text`` is a no, cancel or stop in ``language`` (or English), and only that."""
    said = _said(text)
    return bool(said) and said in _answers(base_language(language or "en"))[1]


def action_phrase(
    service: str, domain: str, names: str, language: str | None, *, after_first: bool = False
) -> str:
    """``domain.service`` on ``names`` as a person says it: "Unlock the Front Door".

    ``after_first``: the phrase follows another in one question ("…and open the Garage Door"):
    no opening "¿", and a verb in lower case where the language writes it so (never a name).
    """
    words = words_for(language)
    mode = ""
    if domain == "automation" and service == "create":
        # A drafted automation (addon.tools.automation): its summary, then the question.
        phrase = words.create_automation
        names = names.rstrip(" .!")
    elif domain == "mcp" or not names:
        # A call on nothing named (an MCP server's tool, an action with no target): it is run,
        # named in words ("Run notes clear notes", "Run homeassistant restart").
        called = names or (service if domain == "mcp" else f"{domain} {service}")
        phrase, names = words.run, " ".join(called.replace("_", " ").split())
    elif domain == "lock" and service == "unlock":
        phrase = words.unlock
    elif domain == "lock" and service == "lock":
        phrase = words.lock
    elif service == "alarm_disarm":
        phrase = words.disarm
    elif service.startswith("alarm_arm_"):
        phrase = words.arm
        arming = service.removeprefix("alarm_arm_")
        mode = words.modes.get(arming, arming.replace("_", " "))
    elif service in OPENS and domain not in ("scene", "script", "automation"):
        phrase = words.open
    elif service in CLOSES:
        phrase = words.close
    elif domain == "scene":
        phrase = words.activate
    elif domain in ("script", "automation"):
        phrase = words.run
    elif service == "turn_on":
        phrase = words.turn_on
    elif service == "turn_off":
        phrase = words.turn_off
    else:
        phrase = words.other
    if after_first:
        phrase = phrase.removeprefix("¿")
        if words.lower_after_first and not phrase.startswith("{"):
            phrase = phrase[:1].lower() + phrase[1:]
    return _THE_THE.sub(r"\1", phrase.format(name=names, mode=mode))


def question(service: str, domain: str, names: str, pin: bool, language: str | None) -> str:
    """The question holding ``domain.service`` on ``names``: "Unlock the Front Door? Say yes…"."""
    return asked_question([Asked(domain, service, (names,) if names else ())], pin, language)


@dataclass(frozen=True, slots=True)
class Asked:
    """One held action as the question names it: what it does, on what (friendly names)."""

    domain: str
    service: str
    names: tuple[str, ...]
    groups: tuple[tuple[str, str], ...] = ()
    """The areas, floors, devices or labels it names, as (kind, friendly name)."""


def listed(names: Sequence[str], language: str | None) -> str:
    """Names as a person lists them, each once: "A", "A and B", "A, B and C"."""
    kept = list(dict.fromkeys(name for name in names if name))
    if len(kept) < 2:
        return "".join(kept)
    return f"{', '.join(kept[:-1])} {words_for(language).and_} {kept[-1]}"


def asked_question(actions: Sequence[Asked], pin: bool, language: str | None) -> str:
    """The question holding every one of ``actions``, each named by its verb and entities.

    Actions of the same kind share a phrase ("Unlock the Front Door and Back Door"); different
    ones are listed ("Unlock the Front Door and open the Garage Door"), never lumped under the
    first one's verb.
    """
    words = words_for(language)
    kinds: dict[tuple[str, str], list[str]] = {}
    for action in actions:
        named = [f"{name} ({words.kinds.get(kind, kind)})" for kind, name in action.groups]
        kinds.setdefault((action.domain, action.service), []).extend([*named, *action.names])
    phrases = [
        action_phrase(service, domain, listed(names, language), language, after_first=index > 0)
        for index, ((domain, service), names) in enumerate(kinds.items())
    ]
    asked = listed(phrases, language)
    return (words.say_pin if pin else words.say_yes).format(question=asked)


def still(
    domain: str, names: str, states: list[str | None], language: str | None, *, many: bool = False
) -> str:
    """What a cancel says, true now: "OK, the Front Door is still locked." only when it is.

    ``states`` are the held entities' states as the home reports them now; where they do not
    all say the same (or nothing is known), the cancel says only that nothing was changed.
    ``many``: ``names`` lists several ("…are still locked").
    """
    words = words_for(language)
    if states and names:
        locked, closed, armed = (
            (words.still_locked_many, words.still_closed_many, words.still_armed_many)
            if many
            else (words.still_locked, words.still_closed, words.still_armed)
        )
        if domain == "lock" and all(state == "locked" for state in states):
            return locked.format(name=names)
        if domain in ("cover", "valve") and all(state == "closed" for state in states):
            return closed.format(name=names)
        if domain == "alarm_control_panel" and all(
            state is not None and state.startswith("armed") for state in states
        ):
            return armed.format(name=names)
    return words.left_alone
