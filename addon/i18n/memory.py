"""What the memory tools say back, in every language Home Agent speaks.

The model reads these in the tools' results and usually repeats them, so "remember that the cat
is called Miso" is confirmed with "I'll remember that the cat is called Miso." A memory is stored
as a sentence of its own ("The cat is called Miso."); English joins it after "that" with its
first word lower-cased when that word is an article or a possessive, the other languages put it
after a colon as it is (German would need the verb moved to the end of a clause).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from addon.i18n.codes import base_language


@dataclass(frozen=True, slots=True)
class MemoryMessages:
    """The memory tools' sentences in one language; ``{fact}`` is the memory's text."""

    remembered: str
    already_known: str
    """A memory that merged with one already kept."""
    refused_secret: str
    nothing_to_remember: str
    recalled_nothing: str
    forgotten: str
    not_found: str
    dry_run_remembered: str
    """A dry run's answer to remember: what would be kept, and that nothing was."""
    dry_run_forgotten: str
    """A dry run's answer to forget: what would go, and that nothing did."""
    lowercase_first: frozenset[str] = frozenset()
    """First words lower-cased when a memory follows ``that`` (English only)."""

    def fact(self, content: str) -> str:
        """``content`` as it follows the confirmation's words: no final stop, maybe lower-cased."""
        text = " ".join(content.split()).rstrip(" .!")
        first, _, rest = text.partition(" ")
        if rest and first.casefold() in self.lowercase_first:
            return first.lower() + " " + rest
        return text


EN = MemoryMessages(
    remembered="I'll remember that {fact}.",
    already_known="I already knew that {fact}; I'll keep it in mind.",
    refused_secret=(
        "I won't remember that: it looks like a password, code or PIN, and I never keep secrets."
    ),
    nothing_to_remember="There was nothing to remember in that.",
    recalled_nothing="I don't remember anything about that.",
    forgotten="I've forgotten that {fact}.",
    not_found="I couldn't find that memory.",
    dry_run_remembered="In a dry run nothing is stored: I would remember that {fact}.",
    dry_run_forgotten="In a dry run nothing is deleted: I would forget that {fact}.",
    lowercase_first=frozenset(
        ("the", "a", "an", "my", "our", "your", "his", "her", "their", "its", "this", "that")
    ),
)
DE = MemoryMessages(
    remembered="Ich merke mir: {fact}.",
    already_known="Das wusste ich schon: {fact}.",
    refused_secret=(
        "Das merke ich mir nicht: Es sieht nach einem Passwort, Code oder einer PIN aus, und "
        "Geheimnisse speichere ich nie."
    ),
    nothing_to_remember="Da war nichts, was ich mir merken könnte.",
    recalled_nothing="Dazu weiß ich nichts.",
    forgotten="Ich habe vergessen: {fact}.",
    not_found="Diese Erinnerung habe ich nicht gefunden.",
    dry_run_remembered="Im Probelauf wird nichts gespeichert. Ich würde mir merken: {fact}.",
    dry_run_forgotten="Im Probelauf wird nichts gelöscht. Ich würde vergessen: {fact}.",
)
FR = MemoryMessages(
    remembered="Je m'en souviendrai : {fact}.",
    already_known="Je le savais déjà : {fact}.",
    refused_secret=(
        "Je ne retiens pas cela : cela ressemble à un mot de passe, un code ou un PIN, et je ne "
        "garde jamais de secrets."
    ),
    nothing_to_remember="Il n'y avait rien à retenir.",
    recalled_nothing="Je ne sais rien à ce sujet.",
    forgotten="J'ai oublié : {fact}.",
    not_found="Je n'ai pas trouvé ce souvenir.",
    dry_run_remembered="En simulation, rien n'est enregistré. Je retiendrais : {fact}.",
    dry_run_forgotten="En simulation, rien n'est supprimé. J'oublierais : {fact}.",
)
ES = MemoryMessages(
    remembered="Lo recordaré: {fact}.",
    already_known="Ya lo sabía: {fact}.",
    refused_secret=(
        "No lo recordaré: parece una contraseña, un código o un PIN, y nunca guardo secretos."
    ),
    nothing_to_remember="No había nada que recordar.",
    recalled_nothing="No recuerdo nada sobre eso.",
    forgotten="He olvidado: {fact}.",
    not_found="No encontré ese recuerdo.",
    dry_run_remembered="En una simulación no se guarda nada. Recordaría: {fact}.",
    dry_run_forgotten="En una simulación no se borra nada. Olvidaría: {fact}.",
)
NL = MemoryMessages(
    remembered="Ik onthoud: {fact}.",
    already_known="Dat wist ik al: {fact}.",
    refused_secret=(
        "Dat onthoud ik niet: het lijkt op een wachtwoord, code of pincode, en geheimen bewaar "
        "ik nooit."
    ),
    nothing_to_remember="Er was niets om te onthouden.",
    recalled_nothing="Daar weet ik niets over.",
    forgotten="Ik ben vergeten: {fact}.",
    not_found="Ik kon die herinnering niet vinden.",
    dry_run_remembered="Bij een proefrun wordt niets opgeslagen. Ik zou onthouden: {fact}.",
    dry_run_forgotten="Bij een proefrun wordt niets verwijderd. Ik zou vergeten: {fact}.",
)
IT = MemoryMessages(
    remembered="Me lo ricorderò: {fact}.",
    already_known="Lo sapevo già: {fact}.",
    refused_secret=(
        "Non lo ricorderò: sembra una password, un codice o un PIN, e non conservo mai segreti."
    ),
    nothing_to_remember="Non c'era niente da ricordare.",
    recalled_nothing="Non ricordo niente al riguardo.",
    forgotten="Ho dimenticato: {fact}.",
    not_found="Non ho trovato quel ricordo.",
    dry_run_remembered="In una prova non si salva nulla. Ricorderei: {fact}.",
    dry_run_forgotten="In una prova non si cancella nulla. Dimenticherei: {fact}.",
)
PL = MemoryMessages(
    remembered="Zapamiętano: {fact}.",
    already_known="To już było zapamiętane: {fact}.",
    refused_secret=(
        "Tego nie zapamiętano: wygląda to na hasło, kod lub PIN, a sekrety nigdy nie są "
        "przechowywane."
    ),
    nothing_to_remember="Nie było tu nic do zapamiętania.",
    recalled_nothing="Nic na ten temat nie zapamiętano.",
    forgotten="Zapomniano: {fact}.",
    not_found="Nie znaleziono tego wspomnienia.",
    dry_run_remembered="W próbie nic nie jest zapisywane. Zapamiętano by: {fact}.",
    dry_run_forgotten="W próbie nic nie jest usuwane. Zapomniano by: {fact}.",
)
PT = MemoryMessages(
    remembered="Vou lembrar: {fact}.",
    already_known="Eu já sabia: {fact}.",
    refused_secret=(
        "Não vou lembrar isso: parece uma senha, um código ou um PIN, e nunca guardo segredos."
    ),
    nothing_to_remember="Não havia nada para lembrar.",
    recalled_nothing="Não me lembro de nada sobre isso.",
    forgotten="Esqueci: {fact}.",
    not_found="Não encontrei essa memória.",
    dry_run_remembered="Num teste nada é guardado. Eu lembraria: {fact}.",
    dry_run_forgotten="Num teste nada é apagado. Eu esqueceria: {fact}.",
)

TABLE: Mapping[str, MemoryMessages] = MappingProxyType(
    {"en": EN, "de": DE, "fr": FR, "es": ES, "nl": NL, "it": IT, "pl": PL, "pt": PT}
)


def memory_messages_for(language: str | None) -> MemoryMessages:
    """The memory tools' sentences in ``language`` ("de-CH" reads as "de"), else English."""
    found = TABLE.get(base_language(language)) if language else None
    return found if found is not None else EN
