"""Home Agent's own sentences in every language it speaks, and how a request finds its own.

One table, so a new message is added in every language at once (a :class:`Messages` cannot be
built with a field missing) and a new language is one more entry. Requests name languages with
regions ("de-CH", "pt-BR"); the table is by language alone, and anything it lacks speaks English.
Polish uses impersonal forms ("włączono") where a first person would need a grammatical gender.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from addon.i18n.codes import base_language
from addon.i18n.messages import Messages

FALLBACK_LANGUAGE = "en"

EN = Messages(
    no_model=(
        "I can only handle simple home commands right now, and I didn't understand that one. "
        "No language model is configured for anything else."
    ),
    not_connected="Sorry, I'm not connected to Home Assistant right now.",
    agent_error="Sorry, something went wrong on my side. Please try again.",
    invalid_request="Sorry, I could not read that request.",
    llm_timeout="Sorry, the language model took too long to answer. Please try again.",
    llm_auth=(
        "Sorry, the language model rejected my API key. "
        "Please check the key in the add-on's settings."
    ),
    llm_model_not_found=(
        "Sorry, the language model service doesn't know the configured model. "
        "Please check the model name in the add-on's settings."
    ),
    llm_unreachable=(
        "Sorry, I couldn't reach the language model. Please check that it is running."
    ),
    llm_rate_limited=(
        "Sorry, the language model is getting too many requests right now. "
        "Please try again in a moment."
    ),
    llm_failed="Sorry, the language model ran into a problem. Please try again in a moment.",
    iteration_limit="Sorry, I couldn't finish that request; it needed too many steps.",
    iteration_limit_done="I {done}, but I couldn't finish the rest; it needed too many steps.",
    turned_on="turned on {names}",
    turned_off="turned off {names}",
    toggled="toggled {names}",
    set="set {names}",
    controlled="controlled {names}",
    and_word="and",
    more="{count} more",
    could_not_do="Sorry, I couldn't do that.",
    delayed_command_refused=(
        "I can only schedule a command I could carry out now without asking first."
    ),
    handed_in_dry_run=(
        "Home Assistant would handle that on a live run; in a dry run nothing is sent to it."
    ),
    done="Done",
    state_is="{name} is {state}",
    expert_timeout="The expert model did not answer in time.",
    expert_unreachable="The expert model could not be reached.",
    expert_refused=(
        "The expert model refused the request; check its "
        "key and model name in the add-on's settings."
    ),
    expert_failed="The expert model ran into a problem and gave no answer.",
)

DE = Messages(
    no_model=(
        "Ich kann gerade nur einfache Befehle für das Zuhause ausführen, und diesen habe ich "
        "nicht verstanden. Für alles andere ist kein Sprachmodell eingerichtet."
    ),
    not_connected="Entschuldigung, ich bin gerade nicht mit Home Assistant verbunden.",
    agent_error="Entschuldigung, bei mir ist etwas schiefgelaufen. Bitte versuche es noch einmal.",
    invalid_request="Entschuldigung, ich konnte diese Anfrage nicht lesen.",
    llm_timeout=(
        "Entschuldigung, das Sprachmodell hat zu lange für die Antwort gebraucht. "
        "Bitte versuche es noch einmal."
    ),
    llm_auth=(
        "Entschuldigung, das Sprachmodell hat meinen API-Schlüssel abgelehnt. "
        "Bitte prüfe den Schlüssel in den Einstellungen des Add-ons."
    ),
    llm_model_not_found=(
        "Entschuldigung, der Dienst des Sprachmodells kennt das eingestellte Modell nicht. "
        "Bitte prüfe den Modellnamen in den Einstellungen des Add-ons."
    ),
    llm_unreachable=(
        "Entschuldigung, ich konnte das Sprachmodell nicht erreichen. Bitte prüfe, ob es läuft."
    ),
    llm_rate_limited=(
        "Entschuldigung, das Sprachmodell bekommt gerade zu viele Anfragen. "
        "Bitte versuche es gleich noch einmal."
    ),
    llm_failed=(
        "Entschuldigung, beim Sprachmodell ist ein Problem aufgetreten. "
        "Bitte versuche es gleich noch einmal."
    ),
    iteration_limit=(
        "Entschuldigung, ich konnte die Anfrage nicht abschließen, "
        "weil dafür zu viele Schritte nötig waren."
    ),
    iteration_limit_done=(
        "Ich habe {done}, konnte den Rest aber nicht abschließen, "
        "weil dafür zu viele Schritte nötig waren."
    ),
    turned_on="{names} eingeschaltet",
    turned_off="{names} ausgeschaltet",
    toggled="{names} umgeschaltet",
    set="{names} eingestellt",
    controlled="{names} gesteuert",
    and_word="und",
    more="{count} weitere",
    could_not_do="Entschuldigung, das konnte ich nicht tun.",
    delayed_command_refused=(
        "Ich kann nur einen Befehl planen, den ich jetzt ohne Rückfrage ausführen könnte."
    ),
    handed_in_dry_run=(
        "Das würde Home Assistant bei einem echten Durchlauf erledigen; "
        "im Probelauf wird nichts gesendet."
    ),
    done="Erledigt",
    state_is="{name} ist {state}",
    expert_timeout="Das Expertenmodell hat nicht rechtzeitig geantwortet.",
    expert_unreachable="Das Expertenmodell war nicht erreichbar.",
    expert_refused=(
        "Das Expertenmodell hat die Anfrage abgelehnt; bitte prüfe "
        "Schlüssel und Modellnamen in den Einstellungen des Add-ons."
    ),
    expert_failed="Beim Expertenmodell ist ein Problem aufgetreten; es kam keine Antwort.",
)

FR = Messages(
    no_model=(
        "Pour l'instant, je ne sais traiter que des commandes simples pour la maison, et je "
        "n'ai pas compris celle-ci. Aucun modèle de langage n'est configuré pour le reste."
    ),
    not_connected="Désolé, je ne suis pas connecté à Home Assistant pour le moment.",
    agent_error="Désolé, un problème est survenu de mon côté. Veuillez réessayer.",
    invalid_request="Désolé, je n'ai pas pu lire cette demande.",
    llm_timeout="Désolé, le modèle de langage a mis trop de temps à répondre. Veuillez réessayer.",
    llm_auth=(
        "Désolé, le modèle de langage a refusé ma clé d'API. "
        "Veuillez vérifier la clé dans les paramètres du module complémentaire."
    ),
    llm_model_not_found=(
        "Désolé, le service du modèle de langage ne connaît pas le modèle configuré. "
        "Veuillez vérifier le nom du modèle dans les paramètres du module complémentaire."
    ),
    llm_unreachable=(
        "Désolé, je n'ai pas pu joindre le modèle de langage. "
        "Veuillez vérifier qu'il est en marche."
    ),
    llm_rate_limited=(
        "Désolé, le modèle de langage reçoit trop de demandes en ce moment. "
        "Veuillez réessayer dans un instant."
    ),
    llm_failed=(
        "Désolé, le modèle de langage a rencontré un problème. Veuillez réessayer dans un instant."
    ),
    iteration_limit=(
        "Désolé, je n'ai pas pu terminer cette demande : cela demandait trop d'étapes."
    ),
    iteration_limit_done=(
        "J'ai {done}, mais je n'ai pas pu terminer le reste : cela demandait trop d'étapes."
    ),
    turned_on="allumé {names}",
    turned_off="éteint {names}",
    toggled="basculé {names}",
    set="réglé {names}",
    controlled="commandé {names}",
    and_word="et",
    more="{count} autres",
    could_not_do="Désolé, je n'ai pas pu faire cela.",
    delayed_command_refused=(
        "Je ne peux programmer qu'une commande que je pourrais exécuter maintenant "
        "sans confirmation."
    ),
    handed_in_dry_run=(
        "Home Assistant s'en chargerait hors simulation ; en simulation, rien ne lui est envoyé."
    ),
    done="C'est fait",
    state_is="{name} est {state}",
    expert_timeout="Le modèle expert n'a pas répondu à temps.",
    expert_unreachable="Le modèle expert est injoignable.",
    expert_refused=(
        "Le modèle expert a refusé la demande ; vérifiez sa clé et le nom "
        "du modèle dans les paramètres du module complémentaire."
    ),
    expert_failed="Le modèle expert a rencontré un problème et n'a pas répondu.",
)

ES = Messages(
    no_model=(
        "Por ahora solo puedo atender órdenes sencillas para la casa y no he entendido esta. "
        "No hay ningún modelo de lenguaje configurado para lo demás."
    ),
    not_connected="Lo siento, ahora mismo no estoy conectado a Home Assistant.",
    agent_error="Lo siento, algo ha fallado por mi parte. Vuelve a intentarlo.",
    invalid_request="Lo siento, no he podido leer esa petición.",
    llm_timeout=(
        "Lo siento, el modelo de lenguaje ha tardado demasiado en responder. Vuelve a intentarlo."
    ),
    llm_auth=(
        "Lo siento, el modelo de lenguaje ha rechazado mi clave de API. "
        "Revisa la clave en la configuración del complemento."
    ),
    llm_model_not_found=(
        "Lo siento, el servicio del modelo de lenguaje no conoce el modelo configurado. "
        "Revisa el nombre del modelo en la configuración del complemento."
    ),
    llm_unreachable=(
        "Lo siento, no he podido contactar con el modelo de lenguaje. "
        "Comprueba que está en funcionamiento."
    ),
    llm_rate_limited=(
        "Lo siento, el modelo de lenguaje está recibiendo demasiadas peticiones ahora mismo. "
        "Vuelve a intentarlo en un momento."
    ),
    llm_failed=(
        "Lo siento, el modelo de lenguaje ha tenido un problema. Vuelve a intentarlo en un momento."
    ),
    iteration_limit="Lo siento, no he podido terminar esa petición: necesitaba demasiados pasos.",
    iteration_limit_done=(
        "He {done}, pero no he podido terminar el resto: necesitaba demasiados pasos."
    ),
    turned_on="encendido {names}",
    turned_off="apagado {names}",
    toggled="cambiado {names}",
    set="ajustado {names}",
    controlled="accionado {names}",
    and_word="y",
    more="{count} más",
    could_not_do="Lo siento, no he podido hacerlo.",
    delayed_command_refused=(
        "Solo puedo programar una orden que podría ejecutar ahora sin pedir confirmación."
    ),
    handed_in_dry_run=(
        "Home Assistant se encargaría de eso fuera del simulacro; "
        "en un simulacro no se le envía nada."
    ),
    done="Hecho",
    state_is="{name}: {state}",
    expert_timeout="El modelo experto no respondió a tiempo.",
    expert_unreachable="No se ha podido contactar con el modelo experto.",
    expert_refused=(
        "El modelo experto rechazó la petición; revisa su clave y el "
        "nombre del modelo en la configuración del complemento."
    ),
    expert_failed="El modelo experto tuvo un problema y no dio respuesta.",
)

NL = Messages(
    no_model=(
        "Ik kan nu alleen eenvoudige opdrachten voor het huis uitvoeren, en deze begreep ik "
        "niet. Voor de rest is er geen taalmodel ingesteld."
    ),
    not_connected="Sorry, ik ben nu niet verbonden met Home Assistant.",
    agent_error="Sorry, er ging bij mij iets mis. Probeer het opnieuw.",
    invalid_request="Sorry, ik kon dat verzoek niet lezen.",
    llm_timeout="Sorry, het taalmodel deed er te lang over om te antwoorden. Probeer het opnieuw.",
    llm_auth=(
        "Sorry, het taalmodel heeft mijn API-sleutel geweigerd. "
        "Controleer de sleutel in de instellingen van de add-on."
    ),
    llm_model_not_found=(
        "Sorry, de dienst van het taalmodel kent het ingestelde model niet. "
        "Controleer de modelnaam in de instellingen van de add-on."
    ),
    llm_unreachable="Sorry, ik kon het taalmodel niet bereiken. Controleer of het draait.",
    llm_rate_limited=(
        "Sorry, het taalmodel krijgt op dit moment te veel verzoeken. Probeer het zo opnieuw."
    ),
    llm_failed="Sorry, het taalmodel liep tegen een probleem aan. Probeer het zo opnieuw.",
    iteration_limit="Sorry, ik kon dat verzoek niet afmaken; er waren te veel stappen nodig.",
    iteration_limit_done=(
        "Ik heb {done}, maar de rest kon ik niet afmaken; er waren te veel stappen nodig."
    ),
    turned_on="{names} aangezet",
    turned_off="{names} uitgezet",
    toggled="{names} omgeschakeld",
    set="{names} ingesteld",
    controlled="{names} bediend",
    and_word="en",
    more="{count} andere",
    could_not_do="Sorry, dat kon ik niet doen.",
    delayed_command_refused=(
        "Ik kan alleen een opdracht inplannen die ik nu zonder bevestiging zou kunnen uitvoeren."
    ),
    handed_in_dry_run=(
        "Home Assistant zou dat echt uitvoeren; in een proefrun wordt er niets naartoe gestuurd."
    ),
    done="Klaar",
    state_is="{name} is {state}",
    expert_timeout="Het expertmodel antwoordde niet op tijd.",
    expert_unreachable="Het expertmodel was niet bereikbaar.",
    expert_refused=(
        "Het expertmodel weigerde het verzoek; controleer de "
        "sleutel en de modelnaam in de instellingen van de add-on."
    ),
    expert_failed="Het expertmodel liep tegen een probleem aan en gaf geen antwoord.",
)

IT = Messages(
    no_model=(
        "Per ora posso eseguire solo semplici comandi per la casa, e questo non l'ho capito. "
        "Per tutto il resto non è configurato alcun modello linguistico."
    ),
    not_connected="Mi dispiace, al momento non sono connesso a Home Assistant.",
    agent_error="Mi dispiace, qualcosa è andato storto da parte mia. Riprova.",
    invalid_request="Mi dispiace, non sono riuscito a leggere questa richiesta.",
    llm_timeout=(
        "Mi dispiace, il modello linguistico ha impiegato troppo tempo a rispondere. Riprova."
    ),
    llm_auth=(
        "Mi dispiace, il modello linguistico ha rifiutato la mia chiave API. "
        "Controlla la chiave nelle impostazioni del componente aggiuntivo."
    ),
    llm_model_not_found=(
        "Mi dispiace, il servizio del modello linguistico non conosce il modello configurato. "
        "Controlla il nome del modello nelle impostazioni del componente aggiuntivo."
    ),
    llm_unreachable=(
        "Mi dispiace, non sono riuscito a raggiungere il modello linguistico. "
        "Controlla che sia in funzione."
    ),
    llm_rate_limited=(
        "Mi dispiace, il modello linguistico sta ricevendo troppe richieste in questo momento. "
        "Riprova tra poco."
    ),
    llm_failed="Mi dispiace, il modello linguistico ha avuto un problema. Riprova tra poco.",
    iteration_limit=(
        "Mi dispiace, non sono riuscito a completare la richiesta: servivano troppi passaggi."
    ),
    iteration_limit_done=(
        "Ho {done}, ma non sono riuscito a completare il resto: servivano troppi passaggi."
    ),
    turned_on="acceso {names}",
    turned_off="spento {names}",
    toggled="commutato {names}",
    set="regolato {names}",
    controlled="azionato {names}",
    and_word="e",
    more="altri {count}",
    could_not_do="Mi dispiace, non sono riuscito a farlo.",
    delayed_command_refused=(
        "Posso programmare solo un comando che potrei eseguire ora senza chiedere conferma."
    ),
    handed_in_dry_run=(
        "Home Assistant lo gestirebbe in un'esecuzione reale; "
        "in una simulazione non gli viene inviato nulla."
    ),
    done="Fatto",
    state_is="{name} è {state}",
    expert_timeout="Il modello esperto non ha risposto in tempo.",
    expert_unreachable="Il modello esperto non è raggiungibile.",
    expert_refused=(
        "Il modello esperto ha rifiutato la richiesta; controlla la chiave e il "
        "nome del modello nelle impostazioni del componente aggiuntivo."
    ),
    expert_failed="Il modello esperto ha avuto un problema e non ha risposto.",
)

PL = Messages(
    no_model=(
        "Na razie obsługuję tylko proste polecenia dotyczące domu, a tego nie rozumiem. "
        "Do pozostałych spraw nie skonfigurowano modelu językowego."
    ),
    not_connected="Przepraszam, nie mam teraz połączenia z Home Assistant.",
    agent_error="Przepraszam, coś poszło nie tak po mojej stronie. Spróbuj ponownie.",
    invalid_request="Przepraszam, nie udało mi się odczytać tego polecenia.",
    llm_timeout="Przepraszam, model językowy zbyt długo nie odpowiadał. Spróbuj ponownie.",
    llm_auth=(
        "Przepraszam, model językowy odrzucił mój klucz API. Sprawdź klucz w ustawieniach dodatku."
    ),
    llm_model_not_found=(
        "Przepraszam, usługa modelu językowego nie zna skonfigurowanego modelu. "
        "Sprawdź nazwę modelu w ustawieniach dodatku."
    ),
    llm_unreachable=(
        "Przepraszam, nie udało mi się połączyć z modelem językowym. Sprawdź, czy działa."
    ),
    llm_rate_limited=(
        "Przepraszam, model językowy otrzymuje teraz zbyt wiele zapytań. "
        "Spróbuj ponownie za chwilę."
    ),
    llm_failed="Przepraszam, model językowy napotkał problem. Spróbuj ponownie za chwilę.",
    iteration_limit=(
        "Przepraszam, nie udało mi się dokończyć tego polecenia: wymagało zbyt wielu kroków."
    ),
    iteration_limit_done=(
        "{done}, ale nie udało mi się dokończyć reszty: wymagała zbyt wielu kroków."
    ),
    turned_on="włączono {names}",
    turned_off="wyłączono {names}",
    toggled="przełączono {names}",
    set="ustawiono {names}",
    controlled="obsłużono {names}",
    and_word="i",
    more="jeszcze {count}",
    could_not_do="Przepraszam, nie udało mi się tego zrobić.",
    delayed_command_refused=(
        "Mogę zaplanować tylko polecenie, które można wykonać teraz bez potwierdzenia."
    ),
    handed_in_dry_run=(
        "Home Assistant zająłby się tym naprawdę; "
        "w przebiegu próbnym nic do niego nie jest wysyłane."
    ),
    done="Gotowe",
    state_is="{name}: {state}",
    expert_timeout="Model ekspercki nie odpowiedział na czas.",
    expert_unreachable="Nie udało się połączyć z modelem eksperckim.",
    expert_refused=(
        "Model ekspercki odrzucił zapytanie; sprawdź klucz i nazwę modelu w ustawieniach dodatku."
    ),
    expert_failed="Model ekspercki napotkał problem i nie udzielił odpowiedzi.",
)

PT = Messages(
    no_model=(
        "Por enquanto só consigo executar comandos simples para a casa, e não entendi este. "
        "Não há nenhum modelo de linguagem configurado para o resto."
    ),
    not_connected="Desculpe, não estou conectado ao Home Assistant neste momento.",
    agent_error="Desculpe, ocorreu um erro do meu lado. Tente novamente.",
    invalid_request="Desculpe, não consegui ler esse pedido.",
    llm_timeout="Desculpe, o modelo de linguagem não respondeu a tempo. Tente novamente.",
    llm_auth=(
        "Desculpe, o modelo de linguagem recusou a minha chave de API. "
        "Verifique a chave nas configurações do complemento."
    ),
    llm_model_not_found=(
        "Desculpe, o serviço do modelo de linguagem não conhece o modelo configurado. "
        "Verifique o nome do modelo nas configurações do complemento."
    ),
    llm_unreachable=(
        "Desculpe, não consegui comunicar com o modelo de linguagem. "
        "Verifique se está em funcionamento."
    ),
    llm_rate_limited=(
        "Desculpe, o modelo de linguagem tem pedidos demais neste momento. "
        "Tente novamente daqui a pouco."
    ),
    llm_failed="Desculpe, o modelo de linguagem teve um problema. Tente novamente daqui a pouco.",
    iteration_limit="Desculpe, não consegui concluir esse pedido: exigia passos demais.",
    iteration_limit_done="{done}, mas não consegui concluir o resto: exigia passos demais.",
    turned_on="liguei {names}",
    turned_off="desliguei {names}",
    toggled="alternei {names}",
    set="ajustei {names}",
    controlled="acionei {names}",
    and_word="e",
    more="mais {count}",
    could_not_do="Desculpe, não consegui fazer isso.",
    delayed_command_refused=(
        "Só posso agendar um comando que poderia executar agora sem pedir confirmação."
    ),
    handed_in_dry_run=(
        "O Home Assistant trataria disso numa execução real; numa simulação nada lhe é enviado."
    ),
    done="Feito",
    state_is="{name}: {state}",
    expert_timeout="O modelo especialista não respondeu a tempo.",
    expert_unreachable="Não foi possível comunicar com o modelo especialista.",
    expert_refused=(
        "O modelo especialista recusou o pedido; verifique a chave e "
        "o nome do modelo nas configurações do complemento."
    ),
    expert_failed="O modelo especialista teve um problema e não deu resposta.",
)

TABLE: Mapping[str, Messages] = MappingProxyType(
    {"en": EN, "de": DE, "fr": FR, "es": ES, "nl": NL, "it": IT, "pl": PL, "pt": PT}
)
"""Messages by language code without region; read-only, as every module-level table here."""


def messages_for(language: str | None) -> Messages:
    """The messages of ``language`` ("de-CH" reads as "de"), English when it has none."""
    if language:
        found = TABLE.get(base_language(language))
        if found is not None:
            return found
    return TABLE[FALLBACK_LANGUAGE]


def has_messages(language: str) -> bool:
    """Whether ``language`` is spoken in its own words rather than in English."""
    return base_language(language) in TABLE
