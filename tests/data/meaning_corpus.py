"""Realistic EN→FR/DE/ES translations of documentation paragraphs, written with each locale's
number, date and time conventions (decimal comma, space or dot thousands, 24-hour clock), for
the meaning checks (tests/test_meaning_checks.py) and the reviewer tests.

Each entry: (source, {lang: faithful translation}). Every paragraph has two to four sentences
and at least one number, so a dropped sentence and a changed number can be injected into each.
"""

from __future__ import annotations

CORPUS: list[tuple[str, dict[str, str]]] = [
    (
        "Deleted files stay in the trash for 30 days. After that, they are removed for good and "
        "cannot be restored.",
        {
            "fr": "Les fichiers supprimés restent dans la corbeille pendant 30 jours. Ensuite, ils "
            "sont effacés définitivement et ne peuvent plus être restaurés.",
            "de": "Gelöschte Dateien bleiben 30 Tage lang im Papierkorb. Danach werden sie "
            "endgültig entfernt und können nicht wiederhergestellt werden.",
            "es": "Los archivos eliminados permanecen en la papelera durante 30 días. Después se "
            "borran de forma definitiva y no se pueden restaurar.",
        },
    ),
    (
        "The free plan includes 1,500 requests per day. Larger teams can buy extra capacity at "
        "$0.25 per 1,000 requests. Unused requests do not carry over to the next day.",
        {
            "fr": "L’offre gratuite comprend 1 500 requêtes par jour. Les équipes plus grandes "
            "peuvent acheter de la capacité supplémentaire à 0,25 $ les 1 000 requêtes. Les "
            "requêtes non utilisées ne sont pas reportées au lendemain.",
            "de": "Der kostenlose Tarif umfasst 1.500 Anfragen pro Tag. Größere Teams können "
            "zusätzliche Kapazität für 0,25 $ pro 1.000 Anfragen kaufen. Nicht genutzte "
            "Anfragen verfallen am Ende des Tages.",
            "es": "El plan gratuito incluye 1500 solicitudes al día. Los equipos más grandes "
            "pueden comprar capacidad adicional a 0,25 $ por cada 1000 solicitudes. Las "
            "solicitudes no utilizadas no se acumulan para el día siguiente.",
        },
    ),
    (
        "Version 2.4.1 was released on March 12, 2026. It fixes a crash when a document has "
        "more than 10,000 blocks. Upgrading is recommended for every user.",
        {
            "fr": "La version 2.4.1 est sortie le 12 mars 2026. Elle corrige un plantage quand un "
            "document compte plus de 10 000 blocs. La mise à jour est recommandée à tous les "
            "utilisateurs.",
            "de": "Version 2.4.1 ist am 12. März 2026 erschienen. Sie behebt einen Absturz, wenn "
            "ein Dokument mehr als 10.000 Blöcke hat. Allen Nutzern wird das Update empfohlen.",
            "es": "La versión 2.4.1 se publicó el 12 de marzo de 2026. Corrige un fallo cuando un "
            "documento tiene más de 10.000 bloques. Se recomienda actualizar a todos los "
            "usuarios.",
        },
    ),
    (
        "The average response time fell from 2.5 seconds to 0.8 seconds. Most of the gain comes "
        "from streaming. The slowest 5% of requests still take over 4 seconds.",
        {
            "fr": "Le temps de réponse moyen est passé de 2,5 secondes à 0,8 seconde. L’essentiel "
            "du gain vient du streaming. Les 5 % de requêtes les plus lentes prennent encore plus "
            "de 4 secondes.",
            "de": "Die durchschnittliche Antwortzeit sank von 2,5 Sekunden auf 0,8 Sekunden. Der "
            "größte Teil des Gewinns kommt vom Streaming. Die langsamsten 5 % der Anfragen "
            "dauern noch immer über 4 Sekunden.",
            "es": "El tiempo medio de respuesta bajó de 2,5 segundos a 0,8 segundos. La mayor "
            "parte de la mejora se debe al streaming. El 5 % de solicitudes más lentas todavía "
            "tarda más de 4 segundos.",
        },
    ),
    (
        "Maintenance starts every Sunday at 3:00 PM and lasts about 2 hours. During that "
        "window the service is read-only. Plan large imports for another day.",
        {
            "fr": "La maintenance commence chaque dimanche à 15 h 00 et dure environ 2 heures. "
            "Pendant ce créneau, le service est en lecture seule. Prévoyez les gros imports un "
            "autre jour.",
            "de": "Die Wartung beginnt jeden Sonntag um 15:00 Uhr und dauert etwa 2 Stunden. In "
            "diesem Zeitraum ist der Dienst schreibgeschützt. Planen Sie große Importe für einen "
            "anderen Tag.",
            "es": "El mantenimiento empieza cada domingo a las 15:00 y dura unas 2 horas. Durante "
            "ese intervalo el servicio es de solo lectura. Planifique las importaciones grandes "
            "para otro día.",
        },
    ),
    (
        "Each upload may be at most 25 MB. Larger files must be split first. The limit applies "
        "to every plan, including the paid ones.",
        {
            "fr": "Chaque envoi peut faire au plus 25 Mo. Les fichiers plus volumineux doivent "
            "d’abord être découpés. La limite s’applique à toutes les offres, y compris les "
            "offres payantes.",
            "de": "Jeder Upload darf höchstens 25 MB groß sein. Größere Dateien müssen vorher "
            "aufgeteilt werden. Das Limit gilt für alle Tarife, auch für die kostenpflichtigen.",
            "es": "Cada subida puede ocupar como máximo 25 MB. Los archivos más grandes deben "
            "dividirse antes. El límite se aplica a todos los planes, incluidos los de pago.",
        },
    ),
    (
        "Your password must have at least 12 characters. We never store it in plain text, and "
        "our support team will never ask for it.",
        {
            "fr": "Votre mot de passe doit comporter au moins 12 caractères. Nous ne le stockons "
            "jamais en clair, et notre équipe d’assistance ne vous le demandera jamais.",
            "de": "Ihr Passwort muss mindestens 12 Zeichen haben. Wir speichern es nie im "
            "Klartext, und unser Support-Team wird Sie nie danach fragen.",
            "es": "Tu contraseña debe tener al menos 12 caracteres. Nunca la guardamos en texto "
            "plano y nuestro equipo de soporte nunca te la pedirá.",
        },
    ),
    (
        "Groq serves gpt-oss-20b at about 1,000 tokens per second. A paragraph of 120 words "
        "therefore comes back in a fraction of a second. Cerebras is faster still on the larger "
        "model.",
        {
            "fr": "Groq sert gpt-oss-20b à environ 1 000 tokens par seconde. Un paragraphe de 120 "
            "mots revient donc en une fraction de seconde. Cerebras est encore plus rapide sur le "
            "modèle plus grand.",
            "de": "Groq liefert gpt-oss-20b mit etwa 1.000 Tokens pro Sekunde. Ein Absatz von 120 "
            "Wörtern kommt daher in einem Bruchteil einer Sekunde zurück. Cerebras ist beim "
            "größeren Modell noch schneller.",
            "es": "Groq sirve gpt-oss-20b a unos 1000 tokens por segundo. Por eso, un párrafo de "
            "120 palabras vuelve en una fracción de segundo. Cerebras es aún más rápido con el "
            "modelo más grande.",
        },
    ),
    (
        "Backups run every night and are kept for 7 days. A full restore of a 40 GB workspace "
        "takes roughly 15 minutes. Contact support if it takes longer than an hour.",
        {
            "fr": "Les sauvegardes ont lieu chaque nuit et sont conservées 7 jours. Une "
            "restauration complète d’un espace de travail de 40 Go prend environ 15 minutes. "
            "Contactez l’assistance si elle dure plus d’une heure.",
            "de": "Sicherungen laufen jede Nacht und werden 7 Tage lang aufbewahrt. Eine "
            "vollständige Wiederherstellung eines Arbeitsbereichs von 40 GB dauert etwa 15 "
            "Minuten. Wenden Sie sich an den Support, wenn es länger als eine Stunde dauert.",
            "es": "Las copias de seguridad se hacen cada noche y se conservan 7 días. Restaurar "
            "por completo un espacio de trabajo de 40 GB lleva unos 15 minutos. Contacte con "
            "soporte si tarda más de una hora.",
        },
    ),
    (
        "Python 3.11 or later is required. On Windows, install it from python.org rather than "
        "from the Store. The installer adds about 100 MB to your disk.",
        {
            "fr": "Python 3.11 ou une version ultérieure est nécessaire. Sous Windows, installez-"
            "le depuis python.org plutôt que depuis le Store. L’installateur occupe environ 100 Mo "
            "sur votre disque.",
            "de": "Python 3.11 oder neuer ist erforderlich. Unter Windows installieren Sie es von "
            "python.org und nicht aus dem Store. Das Installationsprogramm belegt etwa 100 MB auf "
            "Ihrer Festplatte.",
            "es": "Se necesita Python 3.11 o posterior. En Windows, instálalo desde python.org y "
            "no desde la Store. El instalador ocupa unos 100 MB en el disco.",
        },
    ),
    (
        "The report lists 3 errors and 14 warnings. Errors stop the build; warnings do not. "
        "Fix the errors first, then look at the warnings in order.",
        {
            "fr": "Le rapport indique 3 erreurs et 14 avertissements. Les erreurs arrêtent la "
            "compilation ; les avertissements, non. Corrigez d’abord les erreurs, puis examinez "
            "les avertissements dans l’ordre.",
            "de": "Der Bericht listet 3 Fehler und 14 Warnungen auf. Fehler stoppen den Build, "
            "Warnungen nicht. Beheben Sie zuerst die Fehler und sehen Sie sich dann die "
            "Warnungen der Reihe nach an.",
            "es": "El informe muestra 3 errores y 14 advertencias. Los errores detienen la "
            "compilación; las advertencias, no. Corrige primero los errores y después revisa las "
            "advertencias por orden.",
        },
    ),
    (
        "Prices rose by 4.5% on 1 January 2026. Existing subscriptions keep their old price "
        "until renewal.",
        {
            "fr": "Les prix ont augmenté de 4,5 % le 1er janvier 2026. Les abonnements en cours "
            "conservent leur ancien prix jusqu’au renouvellement.",
            "de": "Die Preise sind am 1. Januar 2026 um 4,5 % gestiegen. Bestehende Abonnements "
            "behalten ihren alten Preis bis zur Verlängerung.",
            "es": "Los precios subieron un 4,5 % el 1 de enero de 2026. Las suscripciones "
            "existentes mantienen su precio anterior hasta la renovación.",
        },
    ),
]

# A kept term (a glossary's "keep") translated: (corpus index, lang, as kept, as translated)
KEPT_TERM = "Store"
TERM_TRANSLATED = [
    (9, "fr", "depuis le Store", "depuis la Boutique"),
    (9, "de", "aus dem Store", "aus dem Laden"),
    (9, "es", "desde la Store", "desde la Tienda"),
]

# A negation flipped: (corpus index, lang, faithful phrase, flipped phrase)
NEGATIONS = [
    (6, "fr", "Nous ne le stockons jamais en clair", "Nous le stockons en clair"),
    (6, "de", "Wir speichern es nie im Klartext", "Wir speichern es im Klartext"),
    (6, "es", "Nunca la guardamos en texto plano", "La guardamos en texto plano"),
]

# Faithful translations that merge two sentences into one (the omission check must let them be)
MERGED: list[tuple[str, str, str]] = [
    (
        "Open the file. Then save it under a new name.",
        "Ouvrez le fichier, puis enregistrez-le sous un nouveau nom.",
        "fr",
    ),
    (
        "The key is stored in the keyring. It never appears in a file or a log.",
        "La clé est stockée dans le trousseau et n’apparaît jamais dans un fichier ni dans un "
        "journal.",
        "fr",
    ),
    (
        "Press F5. The block is translated again.",
        "Drücken Sie F5, damit der Block erneut übersetzt wird.",
        "de",
    ),
    (
        "The export is a zip file. It holds every page and its images.",
        "La exportación es un archivo zip que contiene todas las páginas y sus imágenes.",
        "es",
    ),
    (
        "Reviews run after translations. They never delay an edit, and they stay within the "
        "rate limit.",
        "Les relectures ont lieu après les traductions, sans jamais retarder une modification "
        "et dans la limite de débit.",
        "fr",
    ),
    (
        "Memory is a cache. A broken one is set aside and a fresh one is made. Nothing is lost.",
        "Der Übersetzungsspeicher ist ein Cache: Ein beschädigter wird beiseitegelegt und ein "
        "neuer angelegt. Es geht nichts verloren.",
        "de",
    ),
]
