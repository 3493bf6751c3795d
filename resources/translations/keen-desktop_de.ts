<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>LongMessage</name>
    <message>
        <source>▾ Show less</source>
        <translation>▾ Weniger zeigen</translation>
    </message>
    <message>
        <source>▸ Show all %1 lines (%2)</source>
        <translation>▸ Alle %1 Zeilen zeigen (%2)</translation>
    </message>
    <message>
        <source>▸ Show all of it (%1)</source>
        <translation>▸ Alles zeigen (%1)</translation>
    </message>
</context>
<context>
    <name>ProviderCatalog</name>
    <message>
        <source>Required, for example http://localhost:8080/v1</source>
        <translation>Erforderlich, zum Beispiel http://localhost:8080/v1</translation>
    </message>
    <message>
        <source>Default endpoint</source>
        <translation>Standard-Endpunkt</translation>
    </message>
</context>
<context>
    <name>ProviderTable</name>
    <message>
        <source>ChatGPT (Codex sign-in)</source>
        <translation>ChatGPT (Codex-Anmeldung)</translation>
    </message>
    <message>
        <source>llama.cpp server</source>
        <translation>llama.cpp-Server</translation>
    </message>
    <message>
        <source>OpenAI-compatible server</source>
        <translation>OpenAI-kompatibler Server</translation>
    </message>
</context>
<context>
    <name>SetupCheck</name>
    <message>
        <source>Enter the API key.</source>
        <translation>Geben Sie den API-Schlüssel ein.</translation>
    </message>
    <message>
        <source>Enter the API key (or set %1 before starting Keen).</source>
        <translation>Geben Sie den API-Schlüssel ein (oder setzen Sie %1 vor dem Start von Keen).</translation>
    </message>
    <message>
        <source>Sign in with ChatGPT.</source>
        <translation>Melden Sie sich mit ChatGPT an.</translation>
    </message>
    <message>
        <source>Enter the server&apos;s base URL, for example http://localhost:8080/v1.</source>
        <translation>Geben Sie die Basis-URL des Servers ein, zum Beispiel http://localhost:8080/v1.</translation>
    </message>
    <message>
        <source>Enter the name of a model.</source>
        <translation>Geben Sie den Namen eines Modells ein.</translation>
    </message>
</context>
<context>
    <name>SlashCommands</name>
    <message>
        <source>Summarize the conversation into a smaller context; the focus guides the summary</source>
        <translation>Die Unterhaltung in einen kleineren Kontext zusammenfassen; der Schwerpunkt lenkt die Zusammenfassung</translation>
    </message>
    <message>
        <source>Show what fills the context window</source>
        <translation>Zeigen, was das Kontextfenster füllt</translation>
    </message>
    <message>
        <source>Start a new session</source>
        <translation>Eine neue Sitzung beginnen</translation>
    </message>
    <message>
        <source>Browse and search sessions</source>
        <translation>Sitzungen durchsuchen</translation>
    </message>
    <message>
        <source>Resume the last session</source>
        <translation>Die letzte Sitzung fortsetzen</translation>
    </message>
    <message>
        <source>Show or switch the mode</source>
        <translation>Den Modus zeigen oder wechseln</translation>
    </message>
    <message>
        <source>Set the thinking effort</source>
        <translation>Den Denkaufwand festlegen</translation>
    </message>
    <message>
        <source>Show or hide reasoning</source>
        <translation>Den Denkprozess ein- oder ausblenden</translation>
    </message>
    <message>
        <source>Keep full tool activity in history, or none</source>
        <translation>Die Werkzeugaktivität ganz oder gar nicht im Verlauf behalten</translation>
    </message>
    <message>
        <source>List the commands</source>
        <translation>Die Befehle auflisten</translation>
    </message>
    <message>
        <source>Available Commands</source>
        <translation>Verfügbare Befehle</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>Befehl</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>Beschreibung</translation>
    </message>
    <message>
        <source>Pin a note that every compaction keeps verbatim</source>
        <translation>Eine Notiz anheften, die jede Verdichtung wörtlich behält</translation>
    </message>
    <message>
        <source>List the pins and the pin budget; unpin</source>
        <translation>Die angehefteten Einträge und ihr Budget zeigen; lösen</translation>
    </message>
    <message>
        <source>Let these tools run without asking in this folder (.keen/permissions.json)</source>
        <translation>Diese Werkzeuge in diesem Ordner ohne Rückfrage ausführen lassen (.keen/permissions.json)</translation>
    </message>
    <message>
        <source>Make these tools ask again in this folder</source>
        <translation>Diese Werkzeuge in diesem Ordner wieder nachfragen lassen</translation>
    </message>
    <message>
        <source>Use this model of the current provider, or switch provider and model; alone: open the provider settings</source>
        <translation>Dieses Modell des aktuellen Anbieters verwenden oder Anbieter und Modell wechseln; ohne Angabe: die Anbietereinstellungen öffnen</translation>
    </message>
    <message>
        <source>Run a shell command in the working folder yourself; the model does not see it</source>
        <translation>Einen Shell-Befehl selbst im Arbeitsordner ausführen; das Modell sieht ihn nicht</translation>
    </message>
    <message>
        <source>List the memory files the agent reads, or show one</source>
        <translation>Die Gedächtnisdateien des Agenten auflisten oder eine zeigen</translation>
    </message>
    <message>
        <source>Remove the prompts waiting in the queue</source>
        <translation>Die wartenden Eingaben aus der Warteschlange entfernen</translation>
    </message>
    <message>
        <source>Quit Keen Desktop</source>
        <translation>Keen Desktop beenden</translation>
    </message>
    <message>
        <source>Ask a quick side question, also while the agent works; it is not kept</source>
        <translation>Eine kurze Nebenfrage stellen, auch während der Agent arbeitet; sie wird nicht gespeichert</translation>
    </message>
    <message>
        <source>Tokens used per model over the last 7 and 30 days and in all</source>
        <translation>Verbrauchte Tokens je Modell in den letzten 7 und 30 Tagen und insgesamt</translation>
    </message>
    <message>
        <source>Sign out of ChatGPT (the ChatGPT sign-in provider)</source>
        <translation>Von ChatGPT abmelden (der Anbieter mit ChatGPT-Anmeldung)</translation>
    </message>
    <message>
        <source>List the skills, read them again, or choose which the model is offered</source>
        <translation>Skills auflisten, neu einlesen oder auswählen, welche dem Modell angeboten werden</translation>
    </message>
    <message>
        <source>Use a skill: its instructions are sent as your message (see /skills)</source>
        <translation>Einen Skill verwenden: seine Anweisungen werden als Ihre Nachricht gesendet (siehe /skills)</translation>
    </message>
    <message>
        <source>Skill: %1</source>
        <translation>Skill: %1</translation>
    </message>
    <message>
        <source>Delete old command output (7 days) and sessions not used for 14 days, after asking</source>
        <translation>Alte Befehlsausgaben (7 Tage) und seit 14 Tagen nicht genutzte Sitzungen nach Rückfrage löschen</translation>
    </message>
    <message>
        <source>List the subagents the model can hand tasks to (delegate_task)</source>
        <translation>Die Subagenten auflisten, denen das Modell Aufgaben übergeben kann (delegate_task)</translation>
    </message>
    <message>
        <source>A second look critically reviews the conversation; it may read the project but changes nothing, and it is not kept. /adversary model picks the model that reviews</source>
        <translation>Ein zweiter Blick prüft das Gespräch kritisch; er darf das Projekt lesen, ändert aber nichts und wird nicht gespeichert. /adversary model wählt das prüfende Modell</translation>
    </message>
    <message>
        <source>Show the MCP servers and their state, connect (or sign in to) one again, or sign out</source>
        <translation>MCP-Server und ihren Zustand anzeigen, einen erneut verbinden (oder anmelden) oder abmelden</translation>
    </message>
</context>
<context>
    <name>TokenFormat</name>
    <message>
        <source>%1s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1m %2s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1h %2m</source>
        <translation>%1 h %2 min</translation>
    </message>
</context>
<context>
    <name>ToolDisplay</name>
    <message>
        <source>Read</source>
        <translation>Lesen</translation>
    </message>
    <message>
        <source>Write</source>
        <translation>Schreiben</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>Bearbeiten</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>Suchen</translation>
    </message>
    <message>
        <source>Find</source>
        <translation>Finden</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Ausführen</translation>
    </message>
    <message>
        <source>Fetch</source>
        <translation>Abrufen</translation>
    </message>
    <message>
        <source>MCP</source>
        <translation>MCP</translation>
    </message>
    <message>
        <source>Delegate</source>
        <translation>Delegieren</translation>
    </message>
    <message>
        <source>Ask</source>
        <translation>Fragen</translation>
    </message>
    <message>
        <source>1 line</source>
        <translation>1 Zeile</translation>
    </message>
    <message>
        <source>1 match</source>
        <translation>1 Treffer</translation>
    </message>
    <message>
        <source>%1 matches</source>
        <translation>%1 Treffer</translation>
    </message>
    <message>
        <source>1 file</source>
        <translation>1 Datei</translation>
    </message>
    <message>
        <source>%1 files</source>
        <translation>%1 Dateien</translation>
    </message>
    <message>
        <source>%1 bytes</source>
        <translation>%1 Bytes</translation>
    </message>
    <message>
        <source>exit %1</source>
        <translation>Exit-Code %1</translation>
    </message>
    <message>
        <source>%1 completed, %2 failed</source>
        <translation>%1 erledigt, %2 fehlgeschlagen</translation>
    </message>
    <message>
        <source>%1ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1m %2s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>lines %L1–%L2 of %L3</source>
        <translation>Zeilen %L1–%L2 von %L3</translation>
    </message>
    <message>
        <source>%L1 lines</source>
        <translation>%L1 Zeilen</translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation>unverändert</translation>
    </message>
    <message>
        <source>%1: completed in %2, 1 tool call</source>
        <translation>%1: fertig in %2, 1 Werkzeugaufruf</translation>
    </message>
    <message>
        <source>%1: completed in %2, %3 tool calls</source>
        <translation>%1: fertig in %2, %3 Werkzeugaufrufe</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>cached</source>
        <translation>zwischengespeichert</translation>
    </message>
</context>
<context>
    <name>keen::ChatDelegate</name>
    <message>
        <source>... %1 more diff lines</source>
        <translation>... %1 weitere Diff-Zeilen</translation>
    </message>
    <message>
        <source>... %1 earlier lines</source>
        <translation>... %1 frühere Zeilen</translation>
    </message>
    <message>
        <source>Run this command?</source>
        <translation>Diesen Befehl ausführen?</translation>
    </message>
    <message>
        <source>Allow %1?</source>
        <translation>%1 erlauben?</translation>
    </message>
    <message>
        <source>⚠ This command may be destructive.</source>
        <translation>⚠ Dieser Befehl kann Daten zerstören.</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>Denkprozess</translation>
    </message>
    <message>
        <source>The agent asks:</source>
        <translation>Der Agent fragt:</translation>
    </message>
    <message>
        <source>... 1 earlier line</source>
        <translation>... 1 frühere Zeile</translation>
    </message>
    <message>
        <source>↻ Try again</source>
        <translation>↻ Erneut versuchen</translation>
    </message>
    <message>
        <source>↶ Undo compaction</source>
        <translation>↶ Verdichtung rückgängig machen</translation>
    </message>
    <message>
        <source>Hand these tasks to subagents?</source>
        <translation>Diese Aufgaben an Subagenten übergeben?</translation>
    </message>
    <message>
        <source>Call the MCP tool</source>
        <translation>Das MCP-Werkzeug aufrufen</translation>
    </message>
    <message>
        <source>They may change files, run commands, fetch web pages and call MCP tools without asking you; dangerous commands and paths outside the folder are refused.</source>
        <translation>Sie dürfen Dateien ändern, Befehle ausführen, Webseiten abrufen und MCP-Werkzeuge aufrufen, ohne Sie zu fragen; gefährliche Befehle und Pfade außerhalb des Ordners werden abgelehnt.</translation>
    </message>
    <message>
        <source>%1 (undone)</source>
        <translation>%1 (rückgängig gemacht)</translation>
    </message>
</context>
<context>
    <name>keen::ChatGptSignInRow</name>
    <message>
        <source>Sign in with &amp;ChatGPT</source>
        <translation>Mit &amp;ChatGPT anmelden</translation>
    </message>
    <message>
        <source>Finish signing in with ChatGPT in your browser...</source>
        <translation>Schließen Sie die Anmeldung mit ChatGPT in Ihrem Browser ab ...</translation>
    </message>
    <message>
        <source>Signed in with ChatGPT.</source>
        <translation>Mit ChatGPT angemeldet.</translation>
    </message>
    <message>
        <source>Sign &amp;Out</source>
        <translation>&amp;Abmelden</translation>
    </message>
    <message>
        <source>Signed out of ChatGPT.</source>
        <translation>Von ChatGPT abgemeldet.</translation>
    </message>
</context>
<context>
    <name>keen::ChatModel</name>
    <message>
        <source>interrupted</source>
        <translation>unterbrochen</translation>
    </message>
    <message>
        <source>Retrying (attempt %1)...</source>
        <translation>Neuer Versuch (Versuch %1)...</translation>
    </message>
    <message>
        <source>Retrying in %1 s (attempt %2)...</source>
        <translation>Neuer Versuch in %1 s (Versuch %2)...</translation>
    </message>
    <message>
        <source>Interrupted...what should the agent do instead?</source>
        <translation>Unterbrochen ... was soll der Agent stattdessen tun?</translation>
    </message>
    <message>
        <source>↶ Compaction undone: the conversation continues from before it.</source>
        <translation>↶ Verdichtung rückgängig gemacht: Die Unterhaltung geht vom Stand davor weiter.</translation>
    </message>
    <message>
        <source>Compaction policy: %1.</source>
        <translation>Verdichtungsregel: %1.</translation>
    </message>
    <message>
        <source>✓ Context compacted automatically.</source>
        <translation>✓ Kontext automatisch verdichtet.</translation>
    </message>
    <message>
        <source>✓ Context compacted.</source>
        <translation>✓ Kontext verdichtet.</translation>
    </message>
    <message>
        <source>✓ Context compacted automatically: %1</source>
        <translation>✓ Kontext automatisch verdichtet: %1</translation>
    </message>
    <message>
        <source>✓ Context compacted: %1</source>
        <translation>✓ Kontext verdichtet: %1</translation>
    </message>
    <message>
        <source>Pinned: %1</source>
        <translation>Angeheftet: %1</translation>
    </message>
    <message>
        <source>Pin removed.</source>
        <translation>Angehefteter Eintrag gelöst.</translation>
    </message>
    <message>
        <source>your edited summary applied</source>
        <translation>Ihre bearbeitete Zusammenfassung wurde übernommen</translation>
    </message>
    <message>
        <source>Summary of the conversation so far (Compact):</source>
        <translation>Zusammenfassung der bisherigen Unterhaltung (Verdichten):</translation>
    </message>
    <message>
        <source>1 detail not in the summary (%1). Click to see it and pin the original.</source>
        <translation>1 Detail fehlt in der Zusammenfassung (%1). Klicken, um es zu sehen und das Original anzuheften.</translation>
    </message>
    <message>
        <source>%1 details not in the summary (%2). Click to see them and pin the original.</source>
        <translation>%1 Details fehlen in der Zusammenfassung (%2). Klicken, um sie zu sehen und das Original anzuheften.</translation>
    </message>
    <message>
        <source>Unpinned: %1</source>
        <translation>Nicht mehr angeheftet: %1</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>Abgebrochen.</translation>
    </message>
    <message>
        <source>The side question failed: %1</source>
        <translation>Die Nebenfrage ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>No answer came.</source>
        <translation>Es kam keine Antwort.</translation>
    </message>
    <message>
        <source>of the conversation so far</source>
        <translation>des bisherigen Gesprächs</translation>
    </message>
    <message>
        <source>The review failed: %1</source>
        <translation>Die Prüfung ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Retried once.</source>
        <translation>Einmal wiederholt.</translation>
    </message>
    <message>
        <source>Retried %1 times.</source>
        <translation>%1-mal wiederholt.</translation>
    </message>
    <message>
        <source>Retried once: %1</source>
        <translation>Einmal wiederholt: %1</translation>
    </message>
    <message>
        <source>Retried %1 times: %2</source>
        <translation>%1-mal wiederholt: %2</translation>
    </message>
    <message>
        <source>What this summary left out is back in the conversation with the undo.</source>
        <translation>Was diese Zusammenfassung ausgelassen hat, ist mit dem Rückgängigmachen wieder im Gespräch.</translation>
    </message>
    <message>
        <source>Allowed</source>
        <translation>Erlaubt</translation>
    </message>
    <message>
        <source>Allowed for this session</source>
        <translation>Für diese Sitzung erlaubt</translation>
    </message>
    <message>
        <source>Denied</source>
        <translation>Abgelehnt</translation>
    </message>
    <message>
        <source>Denied: asked what to do instead</source>
        <translation>Abgelehnt: nach einer Alternative gefragt</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Abgebrochen</translation>
    </message>
</context>
<context>
    <name>keen::ChatPanel</name>
    <message>
        <source>The request failed.</source>
        <translation>Die Anfrage ist fehlgeschlagen.</translation>
    </message>
    <message>
        <source>Compaction cancelled.</source>
        <translation>Verdichtung abgebrochen.</translation>
    </message>
    <message>
        <source>Context compacted automatically.</source>
        <translation>Kontext automatisch verdichtet.</translation>
    </message>
    <message>
        <source>Queue cleared</source>
        <translation>Warteschlange geleert</translation>
    </message>
    <message>
        <source>Queue is full</source>
        <translation>Warteschlange ist voll</translation>
    </message>
    <message>
        <source>Operation not permitted</source>
        <translation>Vorgang nicht erlaubt</translation>
    </message>
    <message>
        <source>Mode: %1</source>
        <translation>Modus: %1</translation>
    </message>
    <message>
        <source>Usage: /mode plan|build|yolo</source>
        <translation>Verwendung: /mode plan|build|yolo</translation>
    </message>
    <message>
        <source>✓ Mode: %1</source>
        <translation>✓ Modus: %1</translation>
    </message>
    <message>
        <source>Thinking effort: %1</source>
        <translation>Denkaufwand: %1</translation>
    </message>
    <message>
        <source>default</source>
        <translation>Standard</translation>
    </message>
    <message>
        <source>Usage: /show-thinking [on|off]</source>
        <translation>Verwendung: /show-thinking [on|off]</translation>
    </message>
    <message>
        <source>✓ Reasoning is shown.</source>
        <translation>✓ Der Denkprozess wird angezeigt.</translation>
    </message>
    <message>
        <source>✓ Reasoning is hidden.</source>
        <translation>✓ Der Denkprozess wird ausgeblendet.</translation>
    </message>
    <message>
        <source>Usage: /tool-history [full|none]</source>
        <translation>Verwendung: /tool-history [full|none]</translation>
    </message>
    <message>
        <source>Tool history: %1</source>
        <translation>Werkzeugverlauf: %1</translation>
    </message>
    <message>
        <source>What every compaction keeps verbatim (Conversation &gt; Pins)</source>
        <translation>Was jede Verdichtung wörtlich behält (Unterhaltung &gt; Angeheftet)</translation>
    </message>
    <message>
        <source>Could not undo the compaction: %1</source>
        <translation>Die Verdichtung konnte nicht rückgängig gemacht werden: %1</translation>
    </message>
    <message>
        <source>✓ Allowed: %1</source>
        <translation>✓ Erlaubt: %1</translation>
    </message>
    <message>
        <source>✓ Reset: %1</source>
        <translation>✓ Zurückgesetzt: %1</translation>
    </message>
    <message>
        <source>Pins</source>
        <translation>Angeheftet</translation>
    </message>
    <message numerus="yes">
        <source>Pins: %n · %1 of %2 tokens</source>
        <translation>
            <numerusform>Angeheftet: %n · %1 von %2 Tokens</numerusform>
            <numerusform>Angeheftet: %n · %1 von %2 Tokens</numerusform>
        </translation>
    </message>
    <message>
        <source>Undo Compaction</source>
        <translation>Verdichtung rückgängig machen</translation>
    </message>
    <message>
        <source>The restored conversation is about %1 tokens, more than the model&apos;s input budget of %2 tokens. The next request will fail unless it is compacted again.</source>
        <translation>Die wiederhergestellte Unterhaltung umfasst etwa %1 Tokens, mehr als das Eingabebudget des Modells von %2 Tokens. Die nächste Anfrage schlägt fehl, wenn sie nicht erneut verdichtet wird.</translation>
    </message>
    <message>
        <source>Compact Again</source>
        <translation>Erneut verdichten</translation>
    </message>
    <message>
        <source>Keep As It Is</source>
        <translation>So lassen</translation>
    </message>
    <message>
        <source>Usage: %1
Available tools: %2</source>
        <translation>Verwendung: %1
Verfügbare Werkzeuge: %2</translation>
    </message>
    <message>
        <source>Unknown tool: %1. Available tools: %2</source>
        <translation>Unbekanntes Werkzeug: %1. Verfügbare Werkzeuge: %2</translation>
    </message>
    <message>
        <source>Usage: %1</source>
        <translation>Verwendung: %1</translation>
    </message>
    <message>
        <source>The conversation is unchanged; summary text above was not applied.</source>
        <translation>Die Unterhaltung ist unverändert; der Zusammenfassungstext oben wurde nicht übernommen.</translation>
    </message>
    <message>
        <source>&amp;Find in Conversation…</source>
        <translation>In der Unterhaltung &amp;suchen…</translation>
    </message>
    <message>
        <source>Find &amp;Next</source>
        <translation>&amp;Weitersuchen</translation>
    </message>
    <message>
        <source>Find Pre&amp;vious</source>
        <translation>&amp;Rückwärts suchen</translation>
    </message>
    <message>
        <source>Nothing to compact yet: the conversation is empty.</source>
        <translation>Noch nichts zu verdichten: die Unterhaltung ist leer.</translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>&amp;Vergrößern</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>Ver&amp;kleinern</translation>
    </message>
    <message>
        <source>&amp;Actual Size</source>
        <translation>&amp;Originalgröße</translation>
    </message>
    <message>
        <source>Zoom %1%</source>
        <translation>Zoom %1%</translation>
    </message>
    <message>
        <source>The conversation is unchanged.</source>
        <translation>Die Unterhaltung ist unverändert.</translation>
    </message>
    <message>
        <source>%1 (the work done so far goes along with your next message)</source>
        <translation>%1 (die bisherige Arbeit geht mit Ihrer nächsten Nachricht weiter)</translation>
    </message>
    <message>
        <source>The pins take about %1 tokens, more than their budget of %2 tokens. Every pin was kept after the compaction; unpin something in Conversation &gt; Pins, or raise the pin budget in Settings.</source>
        <translation>Die angehefteten Einträge belegen etwa %1 Tokens, mehr als ihr Budget von %2 Tokens. Alle wurden nach der Verdichtung behalten; lösen Sie etwas unter Unterhaltung &gt; Angeheftet, oder erhöhen Sie das Budget dafür in den Einstellungen.</translation>
    </message>
    <message>
        <source>Ran in the shell: the model does not see it (Pin Tool Result in the card&apos;s menu gives it the output).</source>
        <translation>In der Shell ausgeführt: Das Modell sieht es nicht („Werkzeugergebnis anheften“ im Menü der Karte gibt ihm die Ausgabe).</translation>
    </message>
    <message>
        <source>Queue is empty</source>
        <translation>Warteschlange ist leer</translation>
    </message>
    <message>
        <source>No such command or skill: %1</source>
        <translation>Unbekannter Befehl oder Skill: %1</translation>
    </message>
    <message>
        <source>✓ Enabled: %1</source>
        <translation>✓ Aktiviert: %1</translation>
    </message>
    <message>
        <source>✓ Disabled: %1</source>
        <translation>✓ Deaktiviert: %1</translation>
    </message>
    <message>
        <source>`/adversary model &lt;provider&gt;/&lt;model&gt;` picks the model that reviews, `/adversary model default` goes back to this conversation&apos;s model.</source>
        <translation>`/adversary model &lt;Anbieter&gt;/&lt;Modell&gt;` wählt das prüfende Modell, `/adversary model default` kehrt zum Modell dieses Gesprächs zurück.</translation>
    </message>
    <message>
        <source>Reviews run on this conversation&apos;s model.</source>
        <translation>Prüfungen laufen mit dem Modell dieses Gesprächs.</translation>
    </message>
    <message>
        <source>Reviews run on `%1`.</source>
        <translation>Prüfungen laufen mit `%1`.</translation>
    </message>
    <message>
        <source>✓ Reviews run on this conversation&apos;s model</source>
        <translation>✓ Prüfungen laufen mit dem Modell dieses Gesprächs</translation>
    </message>
    <message>
        <source>Usage: /adversary model &lt;provider&gt;/&lt;model&gt; | default</source>
        <translation>Verwendung: /adversary model &lt;Anbieter&gt;/&lt;Modell&gt; | default</translation>
    </message>
    <message>
        <source>✓ Reviews run on %1/%2</source>
        <translation>✓ Prüfungen laufen mit %1/%2</translation>
    </message>
    <message>
        <source>Connecting to MCP server %1...</source>
        <translation>Verbinde mit MCP-Server %1...</translation>
    </message>
    <message>
        <source>No MCP server or tool is named %1; /mcp lists the servers.</source>
        <translation>Kein MCP-Server und kein Werkzeug heißt %1; /mcp listet die Server auf.</translation>
    </message>
    <message>
        <source>No MCP server named %1 signs in with OAuth; /mcp lists the servers.</source>
        <translation>Kein MCP-Server namens %1 meldet sich mit OAuth an; /mcp listet die Server auf.</translation>
    </message>
    <message>
        <source>Sign in to MCP server **%1** in your browser. If it did not open, open this address:

&lt;%2&gt;

Waiting up to %3 minutes; Esc cancels, `/mcp connect %1` starts again.</source>
        <translation>Melde dich im Browser beim MCP-Server **%1** an. Falls er sich nicht geöffnet hat, öffne diese Adresse:

&lt;%2&gt;

Warte bis zu %3 Minuten; Esc bricht ab, `/mcp connect %1` beginnt von vorn.</translation>
    </message>
    <message>
        <source>No web browser could be started. To sign in to MCP server **%1**, open this address in one:

&lt;%2&gt;

Waiting up to %3 minutes; Esc cancels, `/mcp connect %1` starts again.</source>
        <translation>Es konnte kein Webbrowser gestartet werden. Um dich beim MCP-Server **%1** anzumelden, öffne diese Adresse in einem:

&lt;%2&gt;

Warte bis zu %3 Minuten; Esc bricht ab, `/mcp connect %1` beginnt von vorn.</translation>
    </message>
    <message>
        <source>Sign-in to MCP server %1 cancelled.</source>
        <translation>Anmeldung beim MCP-Server %1 abgebrochen.</translation>
    </message>
    <message>
        <source>Signing in to MCP server %1...</source>
        <translation>Anmeldung beim MCP-Server %1 …</translation>
    </message>
    <message>
        <source>%1; the usage of this session is not recorded for /usage.</source>
        <translation>%1; der Verbrauch dieser Sitzung wird für /usage nicht erfasst.</translation>
    </message>
</context>
<context>
    <name>keen::ChatView</name>
    <message>
        <source>Conversation</source>
        <translation>Unterhaltung</translation>
    </message>
    <message>
        <source>What are we building?</source>
        <translation>Was bauen wir?</translation>
    </message>
    <message>
        <source>Type a prompt below and press Enter. / lists commands, @ completes file names.
Compact (Ctrl+Shift+K) summarizes a long conversation; Esc cancels, Ctrl+Shift+S opens earlier sessions.</source>
        <translation>Schreiben Sie unten eine Nachricht und drücken Sie die Eingabetaste. / zeigt die Befehle, @ ergänzt Dateinamen.
Verdichten (Strg+Umschalt+K) fasst eine lange Unterhaltung zusammen; Esc bricht ab, Strg+Umschalt+S öffnet frühere Sitzungen.</translation>
    </message>
    <message>
        <source>&amp;Undo Compaction</source>
        <translation>Verdichtung &amp;rückgängig machen</translation>
    </message>
    <message>
        <source>Show &amp;Details Not in the Summary…</source>
        <translation>&amp;Details zeigen, die in der Zusammenfassung fehlen …</translation>
    </message>
    <message>
        <source>Pin Code &amp;Block</source>
        <translation>Code&amp;block anheften</translation>
    </message>
    <message>
        <source>&amp;Pin Message</source>
        <translation>Nachricht &amp;anheften</translation>
    </message>
    <message>
        <source>&amp;Pin Tool Result</source>
        <translation>Werkzeugergebnis &amp;anheften</translation>
    </message>
    <message>
        <source>&amp;Undo Compaction (undo the later one first)</source>
        <translation>Verdichtung &amp;rückgängig machen (zuerst die spätere)</translation>
    </message>
    <message>
        <source>&amp;Open Link</source>
        <translation>Link ö&amp;ffnen</translation>
    </message>
    <message>
        <source>Copy &amp;Link Address</source>
        <translation>&amp;Linkadresse kopieren</translation>
    </message>
    <message>
        <source>Copy &amp;Output</source>
        <translation>Aus&amp;gabe kopieren</translation>
    </message>
    <message>
        <source>&amp;Copy Message</source>
        <translation>Nachricht &amp;kopieren</translation>
    </message>
    <message>
        <source>Copy C&amp;ode</source>
        <translation>C&amp;ode kopieren</translation>
    </message>
    <message>
        <source>Copy Code Block %1: %2</source>
        <translation>Codeblock %1 kopieren: %2</translation>
    </message>
    <message>
        <source>Copy &amp;Selection</source>
        <translation>&amp;Auswahl kopieren</translation>
    </message>
    <message>
        <source>Select &amp;All</source>
        <translation>&amp;Alles auswählen</translation>
    </message>
</context>
<context>
    <name>keen::CompactionReviewDialog</name>
    <message>
        <source>Review Compaction</source>
        <translation>Verdichtung prüfen</translation>
    </message>
    <message>
        <source>&amp;Summary (Markdown):</source>
        <translation>&amp;Zusammenfassung (Markdown):</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>Zusammenfassung</translation>
    </message>
    <message>
        <source>New focus for the summary (optional)</source>
        <translation>Neuer Schwerpunkt für die Zusammenfassung (optional)</translation>
    </message>
    <message>
        <source>Focus</source>
        <translation>Schwerpunkt</translation>
    </message>
    <message>
        <source>&amp;Regenerate</source>
        <translation>&amp;Neu erzeugen</translation>
    </message>
    <message>
        <source>Run the compaction again with this focus; nothing is applied meanwhile</source>
        <translation>Die Verdichtung mit diesem Schwerpunkt erneut ausführen; bis dahin wird nichts übernommen</translation>
    </message>
    <message>
        <source>&amp;Accept</source>
        <translation>Ü&amp;bernehmen</translation>
    </message>
    <message>
        <source>Replaces 1 message:</source>
        <translation>Ersetzt 1 Nachricht:</translation>
    </message>
    <message>
        <source>Replaces %1 messages:</source>
        <translation>Ersetzt %1 Nachrichten:</translation>
    </message>
    <message>
        <source>This summary will replace the conversation. Press Edit to change it: the text here is what is applied and saved.</source>
        <translation>Diese Zusammenfassung ersetzt die Unterhaltung. Mit „Bearbeiten“ können Sie sie ändern: Der Text hier wird übernommen und gespeichert.</translation>
    </message>
    <message>
        <source>Re&amp;vert Edits</source>
        <translation>Änderungen &amp;verwerfen</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>&amp;Bearbeiten</translation>
    </message>
    <message>
        <source>Put back the summary as the model wrote it and stop editing</source>
        <translation>Die Zusammenfassung so wiederherstellen, wie das Modell sie geschrieben hat, und die Bearbeitung beenden</translation>
    </message>
    <message>
        <source>Change the summary before it is applied</source>
        <translation>Die Zusammenfassung ändern, bevor sie übernommen wird</translation>
    </message>
    <message>
        <source>Apply this summary (Ctrl+Return)</source>
        <translation>Diese Zusammenfassung übernehmen (Strg+Eingabe)</translation>
    </message>
    <message>
        <source>Regenerate the summary and discard your edits?</source>
        <translation>Die Zusammenfassung neu erzeugen und Ihre Änderungen verwerfen?</translation>
    </message>
    <message>
        <source>Discard Edits and Regenerate</source>
        <translation>Änderungen verwerfen und neu erzeugen</translation>
    </message>
    <message>
        <source>Cancel the compaction and discard your edits of the summary?</source>
        <translation>Die Verdichtung abbrechen und Ihre Änderungen an der Zusammenfassung verwerfen?</translation>
    </message>
    <message>
        <source>Discard Edits</source>
        <translation>Änderungen verwerfen</translation>
    </message>
    <message>
        <source>Keep Editing</source>
        <translation>Weiter bearbeiten</translation>
    </message>
</context>
<context>
    <name>keen::ConnectionTest</name>
    <message>
        <source>✗ %1</source>
        <translation>✗ %1</translation>
    </message>
    <message>
        <source>✓ Connected.</source>
        <translation>✓ Verbunden.</translation>
    </message>
    <message>
        <source>✗ The server answered HTTP %1.</source>
        <translation>✗ Der Server antwortete mit HTTP %1.</translation>
    </message>
    <message>
        <source>✗ The server answered with %1, not with the API&apos;s list of models. Check the base URL: it must be the address of the API.</source>
        <translation>✗ Der Server antwortete mit %1, nicht mit der Modellliste der API. Prüfen Sie die Basis-URL: Sie muss die Adresse der API sein.</translation>
    </message>
</context>
<context>
    <name>keen::ContextDialog</name>
    <message>
        <source>Context</source>
        <translation>Kontext</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>Kategorie</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Tokens</translation>
    </message>
    <message>
        <source>% of window</source>
        <translation>% des Fensters</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>Systemprompt</translation>
    </message>
    <message>
        <source>Tool definitions (%1)</source>
        <translation>Werkzeugdefinitionen (%1)</translation>
    </message>
    <message>
        <source>User messages</source>
        <translation>Nachrichten des Benutzers</translation>
    </message>
    <message>
        <source>Assistant messages</source>
        <translation>Nachrichten des Assistenten</translation>
    </message>
    <message>
        <source>Tool results</source>
        <translation>Werkzeugergebnisse</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>Gesamt</translation>
    </message>
    <message>
        <source>Free</source>
        <translation>Frei</translation>
    </message>
    <message>
        <source>N/A</source>
        <translation>k. A.</translation>
    </message>
    <message>
        <source>Compaction requests this session: %1 input / %2 output tokens</source>
        <translation>Verdichtungsanfragen dieser Sitzung: %1 Eingabe- / %2 Ausgabe-Tokens</translation>
    </message>
    <message>
        <source>Compaction for this session</source>
        <translation>Verdichtung für diese Sitzung</translation>
    </message>
    <message>
        <source>Compact automatically at</source>
        <translation>Automatisch verdichten bei</translation>
    </message>
    <message>
        <source>% of the input budget</source>
        <translation>% des Eingabebudgets</translation>
    </message>
    <message>
        <source>Automatic compaction threshold</source>
        <translation>Schwelle der automatischen Verdichtung</translation>
    </message>
    <message>
        <source>Brief</source>
        <translation>Knapp</translation>
    </message>
    <message>
        <source>Normal</source>
        <translation>Normal</translation>
    </message>
    <message>
        <source>Detailed</source>
        <translation>Ausführlich</translation>
    </message>
    <message>
        <source>Summary &amp;detail:</source>
        <translation>&amp;Detailgrad der Zusammenfassung:</translation>
    </message>
    <message>
        <source>Off: nothing is compacted automatically; a turn that would go over the input budget stops and asks you to compact. Compact and /compact always work.</source>
        <translation>Aus: Nichts wird automatisch verdichtet; ein Durchgang, der das Eingabebudget überschreiten würde, hält an und bittet Sie zu verdichten. Verdichten und /compact funktionieren immer.</translation>
    </message>
</context>
<context>
    <name>keen::ContextMeter</name>
    <message>
        <source>Context used</source>
        <translation>Belegter Kontext</translation>
    </message>
    <message>
        <source>N/A</source>
        <translation>k. A.</translation>
    </message>
    <message>
        <source>%1 of the context window</source>
        <translation>%1 des Kontextfensters</translation>
    </message>
    <message>
        <source>Estimated here until the provider reports the next request.</source>
        <translation>Hier geschätzt, bis der Anbieter die nächste Anfrage meldet.</translation>
    </message>
    <message>
        <source>Context window unknown</source>
        <translation>Kontextfenster unbekannt</translation>
    </message>
    <message>
        <source>Context: %1 of %2 tokens (%3).</source>
        <translation>Kontext: %1 von %2 Tokens (%3).</translation>
    </message>
    <message>
        <source>Automatic compaction at about %1 tokens (%2% of the input budget).</source>
        <translation>Automatische Verdichtung bei etwa %1 Tokens (%2 % des Eingabebudgets).</translation>
    </message>
    <message>
        <source>Automatic compaction is off for this session.</source>
        <translation>Die automatische Verdichtung ist für diese Sitzung aus.</translation>
    </message>
    <message>
        <source>Over the context window: the next request will not fit. Compact the conversation first.</source>
        <translation>Über dem Kontextfenster: Die nächste Anfrage passt nicht hinein. Verdichten Sie zuerst die Unterhaltung.</translation>
    </message>
</context>
<context>
    <name>keen::ContextWindowSpinBox</name>
    <message>
        <source> tokens</source>
        <translation> Tokens</translation>
    </message>
    <message>
        <source>How many tokens the model can take in. For a local server, the context size it was started with (llama.cpp -c, Ollama&apos;s context length)</source>
        <translation>Wie viele Tokens das Modell aufnehmen kann. Bei einem lokalen Server die Kontextgröße, mit der er gestartet wurde (llama.cpp -c, Kontextlänge von Ollama)</translation>
    </message>
</context>
<context>
    <name>keen::DesktopNotifier</name>
    <message>
        <source>Show</source>
        <translation>Anzeigen</translation>
    </message>
</context>
<context>
    <name>keen::DroppedDetailsDialog</name>
    <message>
        <source>Path</source>
        <translation>Pfad</translation>
    </message>
    <message>
        <source>Identifier</source>
        <translation>Bezeichner</translation>
    </message>
    <message>
        <source>Number</source>
        <translation>Zahl</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>Not in the Summary</source>
        <translation>Nicht in der Zusammenfassung</translation>
    </message>
    <message>
        <source>These details of the compacted part are not in its summary. Pin the original text around one to keep it verbatim after every compaction.</source>
        <translation>Diese Details des verdichteten Teils fehlen in seiner Zusammenfassung. Heften Sie den Originaltext um eines davon an, damit er nach jeder Verdichtung wörtlich erhalten bleibt.</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Art</translation>
    </message>
    <message>
        <source>Detail</source>
        <translation>Detail</translation>
    </message>
    <message>
        <source>Pin the Original</source>
        <translation>Original anheften</translation>
    </message>
    <message>
        <source>Pinned</source>
        <translation>Angeheftet</translation>
    </message>
</context>
<context>
    <name>keen::FindBar</name>
    <message>
        <source>Find in conversation</source>
        <translation>In der Unterhaltung suchen</translation>
    </message>
    <message>
        <source>10000+ matches</source>
        <translation>10000+ Treffer</translation>
    </message>
    <message>
        <source>Previous match (Shift+Enter, Shift+F3)</source>
        <translation>Vorheriger Treffer (Umschalt+Eingabe, Umschalt+F3)</translation>
    </message>
    <message>
        <source>Next match (Enter, F3)</source>
        <translation>Nächster Treffer (Eingabe, F3)</translation>
    </message>
    <message>
        <source>Close (Esc)</source>
        <translation>Schließen (Esc)</translation>
    </message>
    <message>
        <source>No matches</source>
        <translation>Keine Treffer</translation>
    </message>
    <message>
        <source>%1+ matches</source>
        <translation>%1+ Treffer</translation>
    </message>
    <message>
        <source>%1 of %2+</source>
        <translation>%1 von %2+</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>%1 matches</source>
        <translation>%1 Treffer</translation>
    </message>
</context>
<context>
    <name>keen::InputEditor</name>
    <message>
        <source>Prompt</source>
        <translation>Eingabe</translation>
    </message>
    <message>
        <source>Message Keen (Enter sends, Shift+Enter adds a line)</source>
        <translation>Nachricht an Keen (Eingabetaste sendet, Umschalt+Eingabetaste fügt eine Zeile ein)</translation>
    </message>
    <message>
        <source>Message Keen</source>
        <translation>Nachricht an Keen</translation>
    </message>
</context>
<context>
    <name>keen::MainWindow</name>
    <message>
        <source>Usage: /thinking %1</source>
        <translation>Verwendung: /thinking %1</translation>
    </message>
    <message>
        <source>✓ Thinking effort: %1</source>
        <translation>✓ Denkaufwand: %1</translation>
    </message>
    <message>
        <source>%1 elapsed</source>
        <translation>%1 vergangen</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>&amp;New Session</source>
        <translation>&amp;Neue Sitzung</translation>
    </message>
    <message>
        <source>&amp;Open Folder...</source>
        <translation>Ordner ö&amp;ffnen ...</translation>
    </message>
    <message>
        <source>&amp;Clear List</source>
        <translation>Liste &amp;leeren</translation>
    </message>
    <message>
        <source>&amp;Compact</source>
        <translation>&amp;Verdichten</translation>
    </message>
    <message>
        <source>Compact: summarize the conversation into a smaller context (%1)</source>
        <translation>Verdichten: die Unterhaltung in einen kleineren Kontext zusammenfassen (%1)</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>&amp;Stopp</translation>
    </message>
    <message>
        <source>Next &amp;Mode</source>
        <translation>Nächster &amp;Modus</translation>
    </message>
    <message>
        <source>Next mode: build, plan, yolo (Shift+Tab)</source>
        <translation>Nächster Modus: build, plan, yolo (Umschalt+Tab)</translation>
    </message>
    <message>
        <source>&amp;Settings...</source>
        <translation>&amp;Einstellungen ...</translation>
    </message>
    <message>
        <source>Show &amp;Thinking</source>
        <translation>&amp;Denkprozess anzeigen</translation>
    </message>
    <message>
        <source>Choose &amp;Provider</source>
        <translation>&amp;Anbieter wählen</translation>
    </message>
    <message>
        <source>Choose M&amp;odel</source>
        <translation>M&amp;odell wählen</translation>
    </message>
    <message>
        <source>Follow the &amp;System</source>
        <translation>Dem &amp;System folgen</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>&amp;Hell</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>&amp;Dunkel</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>&amp;Zuletzt geöffnet</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;Conversation</source>
        <translation>&amp;Unterhaltung</translation>
    </message>
    <message>
        <source>Show C&amp;ontext...</source>
        <translation>K&amp;ontext anzeigen ...</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>&amp;Commands</source>
        <translation>&amp;Befehle</translation>
    </message>
    <message>
        <source>&amp;About Keen Desktop</source>
        <translation>Ü&amp;ber Keen Desktop</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>Über &amp;Qt</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>Haupt</translation>
    </message>
    <message>
        <source>build</source>
        <translation>build</translation>
    </message>
    <message>
        <source>plan</source>
        <translation>plan</translation>
    </message>
    <message>
        <source>yolo</source>
        <translation>yolo</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>Modus</translation>
    </message>
    <message>
        <source>Mode: build asks before writes, plan refuses writes, yolo never asks (Shift+Tab)</source>
        <translation>Modus: build fragt vor dem Schreiben, plan verweigert Schreibzugriffe, yolo fragt nie (Umschalt+Tab)</translation>
    </message>
    <message>
        <source> Mode: </source>
        <translation> Modus: </translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>Anbieter</translation>
    </message>
    <message>
        <source>Provider (%1)</source>
        <translation>Anbieter (%1)</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Model (%1)</source>
        <translation>Modell (%1)</translation>
    </message>
    <message>
        <source> Provider: </source>
        <translation> Anbieter: </translation>
    </message>
    <message>
        <source> Model: </source>
        <translation> Modell: </translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>Try Compact</source>
        <translation>Verdichten versuchen</translation>
    </message>
    <message>
        <source>Input and output tokens of this session</source>
        <translation>Ein- und Ausgabe-Tokens dieser Sitzung</translation>
    </message>
    <message>
        <source>Sessions</source>
        <translation>Sitzungen</translation>
    </message>
    <message>
        <source>S&amp;essions</source>
        <translation>S&amp;itzungen</translation>
    </message>
    <message>
        <source>Show or hide the sessions sidebar (%1)</source>
        <translation>Seitenleiste mit Sitzungen ein- oder ausblenden (%1)</translation>
    </message>
    <message>
        <source>Show or hide the sessions sidebar</source>
        <translation>Seitenleiste mit Sitzungen ein- oder ausblenden</translation>
    </message>
    <message>
        <source>Sessions sidebar</source>
        <translation>Seitenleiste Sitzungen</translation>
    </message>
    <message>
        <source>&amp;Color Scheme</source>
        <translation>&amp;Farbschema</translation>
    </message>
    <message>
        <source>Open Folder</source>
        <translation>Ordner öffnen</translation>
    </message>
    <message>
        <source>%1 is not a folder.</source>
        <translation>%1 ist kein Ordner.</translation>
    </message>
    <message>
        <source>Open Another Folder?</source>
        <translation>Einen anderen Ordner öffnen?</translation>
    </message>
    <message>
        <source>The agent is still working in %1.
Stop it and open %2?</source>
        <translation>Der Agent arbeitet noch in %1.
Ihn anhalten und %2 öffnen?</translation>
    </message>
    <message>
        <source>Stop and Open</source>
        <translation>Anhalten und öffnen</translation>
    </message>
    <message>
        <source>Keep Working</source>
        <translation>Weiterarbeiten</translation>
    </message>
    <message>
        <source>No Recent Folders</source>
        <translation>Keine zuletzt geöffneten Ordner</translation>
    </message>
    <message>
        <source>Choose a Project Folder</source>
        <translation>Projektordner wählen</translation>
    </message>
    <message>
        <source>Keen Desktop works in one folder: it reads, searches and changes the files there. Which folder should it work in?</source>
        <translation>Keen Desktop arbeitet in einem Ordner: Es liest, durchsucht und ändert die Dateien dort. In welchem Ordner soll es arbeiten?</translation>
    </message>
    <message>
        <source>You can open another folder at any time with File &gt; Open Folder (%1).</source>
        <translation>Sie können jederzeit mit Datei &gt; Ordner öffnen (%1) einen anderen Ordner öffnen.</translation>
    </message>
    <message>
        <source>Choose Folder...</source>
        <translation>Ordner wählen ...</translation>
    </message>
    <message>
        <source>Use My Home Folder</source>
        <translation>Persönlichen Ordner verwenden</translation>
    </message>
    <message>
        <source>Home</source>
        <translation>Persönlicher Ordner</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>%1 • %2</source>
        <translation>%1 • %2</translation>
    </message>
    <message>
        <source>No provider configured</source>
        <translation>Kein Anbieter eingerichtet</translation>
    </message>
    <message>
        <source>%1/%2</source>
        <translation>%1/%2</translation>
    </message>
    <message>
        <source> • thinking: %1</source>
        <translation> • Denkaufwand: %1</translation>
    </message>
    <message>
        <source>%1 ↑ / %2 ↓</source>
        <translation>%1 ↑ / %2 ↓</translation>
    </message>
    <message>
        <source>Finish signing in with ChatGPT in your browser...</source>
        <translation>Schließen Sie die Anmeldung mit ChatGPT in Ihrem Browser ab ...</translation>
    </message>
    <message>
        <source>About Keen Desktop</source>
        <translation>Über Keen Desktop</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Keen Desktop %1&lt;/h3&gt;&lt;p&gt;A desktop agent that works in your project folder with a large language model.&lt;/p&gt;&lt;p&gt;Built with Qt %2.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Keen Desktop %1&lt;/h3&gt;&lt;p&gt;Ein Desktop-Agent, der mit einem großen Sprachmodell in Ihrem Projektordner arbeitet.&lt;/p&gt;&lt;p&gt;Erstellt mit Qt %2.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&amp;Undo Compaction</source>
        <translation>Verdichtung &amp;rückgängig machen</translation>
    </message>
    <message>
        <source>Undo the latest compaction: the conversation continues from before it, later turns kept</source>
        <translation>Die letzte Verdichtung rückgängig machen: Die Unterhaltung geht vom Stand davor weiter, spätere Durchgänge bleiben erhalten</translation>
    </message>
    <message>
        <source>&amp;Pins...</source>
        <translation>&amp;Angeheftet ...</translation>
    </message>
    <message>
        <source> · compaction %1 ↑ / %2 ↓</source>
        <translation> · Verdichtung %1 ↑ / %2 ↓</translation>
    </message>
    <message>
        <source>&amp;Cancel Compaction</source>
        <translation>Verdichtung &amp;abbrechen</translation>
    </message>
    <message>
        <source>Cancel the compaction (Esc)</source>
        <translation>Die Verdichtung abbrechen (Esc)</translation>
    </message>
    <message>
        <source>Cancel the compaction</source>
        <translation>Die Verdichtung abbrechen</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Stopp</translation>
    </message>
    <message>
        <source>A model needs a name; %1 stays in use.</source>
        <translation>Ein Modell braucht einen Namen; %1 bleibt in Verwendung.</translation>
    </message>
    <message>
        <source>No provider is configured yet. Choose one in Settings first.</source>
        <translation>Es ist noch kein Anbieter eingerichtet. Wählen Sie zuerst einen in den Einstellungen.</translation>
    </message>
    <message>
        <source>✓ Model: %1</source>
        <translation>✓ Modell: %1</translation>
    </message>
    <message>
        <source>%1 is used from the next turn; the running turn finishes with %2/%3.</source>
        <translation>%1 wird ab dem nächsten Durchgang verwendet; der laufende Durchgang endet mit %2/%3.</translation>
    </message>
    <message>
        <source>Unknown provider &quot;%1&quot;. Valid providers: %2.</source>
        <translation>Unbekannter Anbieter „%1“. Gültige Anbieter: %2.</translation>
    </message>
    <message>
        <source>For a model whose name has a slash, name the provider first: /model %1/%2</source>
        <translation>Für ein Modell mit Schrägstrich im Namen zuerst den Anbieter nennen: /model %1/%2</translation>
    </message>
    <message>
        <source>Open Another Session?</source>
        <translation>Andere Sitzung öffnen?</translation>
    </message>
    <message>
        <source>The agent is still working.
Stop it and open the other session?</source>
        <translation>Der Agent arbeitet noch.
Ihn anhalten und die andere Sitzung öffnen?</translation>
    </message>
    <message>
        <source>The agent is still working.
Stop it and open “%1”?</source>
        <translation>Der Agent arbeitet noch.
Ihn anhalten und „%1“ öffnen?</translation>
    </message>
    <message>
        <source>Start a New Session?</source>
        <translation>Neue Sitzung beginnen?</translation>
    </message>
    <message>
        <source>The agent is still working.
Stop it and start a new session?</source>
        <translation>Der Agent arbeitet noch.
Ihn anhalten und eine neue Sitzung beginnen?</translation>
    </message>
    <message>
        <source>Stop and Start New</source>
        <translation>Anhalten und neu beginnen</translation>
    </message>
    <message>
        <source>Quit Keen Desktop?</source>
        <translation>Keen Desktop beenden?</translation>
    </message>
    <message>
        <source>The agent is still working.
Stop it and quit? What it has done so far is saved.</source>
        <translation>Der Agent arbeitet noch.
Ihn anhalten und beenden? Was er bisher getan hat, wird gespeichert.</translation>
    </message>
    <message>
        <source>Stop and Quit</source>
        <translation>Anhalten und beenden</translation>
    </message>
    <message>
        <source>/logout signs out of ChatGPT; %1 uses no sign-in.</source>
        <translation>/logout meldet von ChatGPT ab; %1 verwendet keine Anmeldung.</translation>
    </message>
    <message>
        <source>Signing out of ChatGPT…</source>
        <translation>Abmeldung von ChatGPT …</translation>
    </message>
    <message>
        <source>Signed out of ChatGPT. Sign in again in Settings to go on.</source>
        <translation>Von ChatGPT abgemeldet. Melden Sie sich in den Einstellungen erneut an, um fortzufahren.</translation>
    </message>
    <message>
        <source>Clean &amp;Up Old Data...</source>
        <translation>Alte &amp;Daten aufräumen...</translation>
    </message>
    <message>
        <source>Cleaning up…</source>
        <translation>Räume auf…</translation>
    </message>
    <message>
        <source>Nothing to clean up: no command output older than %1 days and no session unused for %2 days.</source>
        <translation>Nichts aufzuräumen: keine Befehlsausgabe älter als %1 Tage und keine Sitzung seit %2 Tagen ungenutzt.</translation>
    </message>
    <message>
        <source>Clean Up Old Data</source>
        <translation>Alte Daten aufräumen</translation>
    </message>
    <message>
        <source>Delete this old data?</source>
        <translation>Diese alten Daten löschen?</translation>
    </message>
    <message>
        <source>This cannot be undone.</source>
        <translation>Dies kann nicht rückgängig gemacht werden.</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <source>Nothing was removed.</source>
        <translation>Es wurde nichts entfernt.</translation>
    </message>
    <message>
        <source>Open &amp;Log Folder</source>
        <translation>&amp;Protokollordner öffnen</translation>
    </message>
    <message>
        <source>⚠ MCP: 1 server failed</source>
        <translation>⚠ MCP: 1 Server fehlgeschlagen</translation>
    </message>
    <message>
        <source>⚠ MCP: %1 servers failed</source>
        <translation>⚠ MCP: %1 Server fehlgeschlagen</translation>
    </message>
    <message>
        <source>Click to show the MCP servers (/mcp).</source>
        <translation>Klicken, um die MCP-Server anzuzeigen (/mcp).</translation>
    </message>
    <message>
        <source>&amp;Export Conversation...</source>
        <translation>Unterhaltung e&amp;xportieren ...</translation>
    </message>
    <message>
        <source>Save this conversation as a Markdown file</source>
        <translation>Diese Unterhaltung als Markdown-Datei speichern</translation>
    </message>
    <message>
        <source>conversation</source>
        <translation>Unterhaltung</translation>
    </message>
</context>
<context>
    <name>keen::PermissionCard</name>
    <message>
        <source>Permission request</source>
        <translation>Berechtigungsanfrage</translation>
    </message>
    <message>
        <source>&amp;Allow</source>
        <translation>&amp;Erlauben</translation>
    </message>
    <message>
        <source>Allow for this &amp;session</source>
        <translation>Für diese &amp;Sitzung erlauben</translation>
    </message>
    <message>
        <source>&amp;Deny</source>
        <translation>&amp;Ablehnen</translation>
    </message>
    <message>
        <source>Ask &amp;what to do instead</source>
        <translation>Fragen, &amp;was stattdessen</translation>
    </message>
</context>
<context>
    <name>keen::PinsDialog</name>
    <message>
        <source>Note</source>
        <translation>Notiz</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Nachricht</translation>
    </message>
    <message>
        <source>Code block</source>
        <translation>Codeblock</translation>
    </message>
    <message>
        <source>Tool result</source>
        <translation>Werkzeugergebnis</translation>
    </message>
    <message>
        <source>Original text</source>
        <translation>Originaltext</translation>
    </message>
    <message>
        <source>&amp;Pin Note</source>
        <translation>Notiz &amp;anheften</translation>
    </message>
    <message>
        <source>&amp;Unpin</source>
        <translation>&amp;Lösen</translation>
    </message>
    <message>
        <source>Pins</source>
        <translation>Angeheftet</translation>
    </message>
    <message>
        <source>A note every compaction should keep</source>
        <translation>Eine Notiz, die jede Verdichtung behalten soll</translation>
    </message>
    <message>
        <source>Pin</source>
        <translation>Anheften</translation>
    </message>
    <message>
        <source>Pins use about %1 of %2 tokens.</source>
        <translation>Angeheftetes braucht etwa %1 von %2 Tokens.</translation>
    </message>
    <message>
        <source>Pinned items are kept verbatim after the summary of every compaction. One the conversation does not hold yet, such as a note, reaches the model with the next request.</source>
        <translation>Angeheftete Einträge bleiben nach der Zusammenfassung jeder Verdichtung wörtlich erhalten. Einer, den das Gespräch noch nicht enthält, etwa eine Notiz, erreicht das Modell mit der nächsten Anfrage.</translation>
    </message>
</context>
<context>
    <name>keen::QuestionCard</name>
    <message>
        <source>Question from the agent</source>
        <translation>Frage des Agenten</translation>
    </message>
    <message>
        <source>Answer %1:</source>
        <translation>Antwort %1:</translation>
    </message>
    <message>
        <source>&amp;Submit</source>
        <translation>&amp;Senden</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>Abb&amp;rechen</translation>
    </message>
</context>
<context>
    <name>keen::QueueChips</name>
    <message>
        <source>Queued prompts</source>
        <translation>Wartende Nachrichten</translation>
    </message>
    <message>
        <source>queue: %1</source>
        <translation>Warteschlange: %1</translation>
    </message>
    <message>
        <source>Remove queued prompt %1</source>
        <translation>Wartende Nachricht %1 entfernen</translation>
    </message>
    <message>
        <source>Remove from the queue</source>
        <translation>Aus der Warteschlange entfernen</translation>
    </message>
</context>
<context>
    <name>keen::ReplacedMessagesModel</name>
    <message>
        <source>Pinned: 1 item, kept after the summary as it is</source>
        <translation>Angeheftet: 1 Eintrag, bleibt unverändert nach der Zusammenfassung</translation>
    </message>
    <message>
        <source>Pinned: %1 items, kept after the summary as they are</source>
        <translation>Angeheftet: %1 Einträge, bleiben unverändert nach der Zusammenfassung</translation>
    </message>
    <message>
        <source>Summary of the earlier conversation, then you: %1</source>
        <translation>Zusammenfassung des bisherigen Gesprächs, dann Sie: %1</translation>
    </message>
    <message>
        <source>You: %1</source>
        <translation>Sie: %1</translation>
    </message>
    <message>
        <source>Assistant: %1</source>
        <translation>Assistent: %1</translation>
    </message>
    <message>
        <source>System: %1</source>
        <translation>System: %1</translation>
    </message>
    <message>
        <source>1 tool call</source>
        <translation>1 Werkzeugaufruf</translation>
    </message>
    <message>
        <source>%1 tool calls</source>
        <translation>%1 Werkzeugaufrufe</translation>
    </message>
</context>
<context>
    <name>keen::SessionBrowserPanel</name>
    <message>
        <source>Search messages and tool output</source>
        <translation>Nachrichten und Werkzeugausgaben durchsuchen</translation>
    </message>
    <message>
        <source>This folder</source>
        <translation>Dieser Ordner</translation>
    </message>
    <message>
        <source>Sessions of the current workspace</source>
        <translation>Sitzungen des aktuellen Arbeitsordners</translation>
    </message>
    <message>
        <source>All folders</source>
        <translation>Alle Ordner</translation>
    </message>
    <message>
        <source>Sessions of every workspace</source>
        <translation>Sitzungen aller Arbeitsordner</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>Öffnen</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>Umbenennen</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>Löschen …</translation>
    </message>
    <message>
        <source>Export to Markdown…</source>
        <translation>Als Markdown exportieren …</translation>
    </message>
    <message>
        <source>Show in File Manager</source>
        <translation>In der Dateiverwaltung zeigen</translation>
    </message>
    <message>
        <source>Open the session (Enter)</source>
        <translation>Sitzung öffnen (Eingabetaste)</translation>
    </message>
    <message>
        <source>Rename the session (F2)</source>
        <translation>Sitzung umbenennen (F2)</translation>
    </message>
    <message>
        <source>Delete the session (Delete)</source>
        <translation>Sitzung löschen (Entf)</translation>
    </message>
    <message>
        <source>More</source>
        <translation>Mehr</translation>
    </message>
    <message>
        <source>Export or show the session&apos;s folder</source>
        <translation>Exportieren oder den Ordner der Sitzung zeigen</translation>
    </message>
    <message>
        <source>Sessions of %1</source>
        <translation>Sitzungen von %1</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>Suche läuft …</translation>
    </message>
    <message>
        <source>No sessions match “%1”.</source>
        <translation>Keine Sitzung passt zu „%1“.</translation>
    </message>
    <message>
        <source>1 matching session</source>
        <translation>1 passende Sitzung</translation>
    </message>
    <message>
        <source>%1 matching sessions</source>
        <translation>%1 passende Sitzungen</translation>
    </message>
    <message>
        <source>No session store.</source>
        <translation>Kein Sitzungsspeicher.</translation>
    </message>
    <message>
        <source>Loading sessions…</source>
        <translation>Sitzungen werden geladen …</translation>
    </message>
    <message>
        <source>No saved sessions.</source>
        <translation>Keine gespeicherten Sitzungen.</translation>
    </message>
    <message>
        <source>No saved sessions for this folder.</source>
        <translation>Keine gespeicherten Sitzungen für diesen Ordner.</translation>
    </message>
    <message>
        <source>Renamed to “%1”.</source>
        <translation>Umbenannt in „%1“.</translation>
    </message>
    <message>
        <source>Delete Session</source>
        <translation>Sitzung löschen</translation>
    </message>
    <message>
        <source>Delete “%1”?</source>
        <translation>„%1“ löschen?</translation>
    </message>
    <message>
        <source>Its transcript is removed from disk. This cannot be undone.</source>
        <translation>Ihr Protokoll wird von der Festplatte entfernt. Das kann nicht rückgängig gemacht werden.</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <source>Deleted “%1”.</source>
        <translation>„%1“ gelöscht.</translation>
    </message>
    <message>
        <source>Export Session to Markdown</source>
        <translation>Sitzung als Markdown exportieren</translation>
    </message>
    <message>
        <source>Markdown (*.md);;All files (*)</source>
        <translation>Markdown (*.md);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Exported to %1.</source>
        <translation>Nach %1 exportiert.</translation>
    </message>
    <message>
        <source>Cannot open %1 in the file manager.</source>
        <translation>%1 kann nicht in der Dateiverwaltung geöffnet werden.</translation>
    </message>
    <message>
        <source>The newest %1 of %2 matching sessions; add words to narrow the search.</source>
        <translation>Die neuesten %1 von %2 passenden Sitzungen; weitere Wörter grenzen die Suche ein.</translation>
    </message>
    <message>
        <source>The agent is working in “%1”. Stop it before deleting the session.</source>
        <translation>Der Agent arbeitet in „%1“. Halten Sie ihn an, bevor Sie die Sitzung löschen.</translation>
    </message>
    <message>
        <source>It is the conversation open in the window, which starts a new session. Its transcript is removed from disk. This cannot be undone.</source>
        <translation>Es ist die im Fenster geöffnete Unterhaltung; das Fenster beginnt eine neue Sitzung. Ihr Protokoll wird von der Festplatte entfernt. Dies kann nicht rückgängig gemacht werden.</translation>
    </message>
</context>
<context>
    <name>keen::SessionItemDelegate</name>
    <message>
        <source>No messages yet</source>
        <translation>Noch keine Nachrichten</translation>
    </message>
</context>
<context>
    <name>keen::SessionListModel</name>
    <message>
        <source>Today</source>
        <translation>Heute</translation>
    </message>
    <message>
        <source>Yesterday</source>
        <translation>Gestern</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>Letzte 7 Tage</translation>
    </message>
    <message>
        <source>Older</source>
        <translation>Älter</translation>
    </message>
    <message>
        <source>Untitled session</source>
        <translation>Unbenannte Sitzung</translation>
    </message>
</context>
<context>
    <name>keen::SessionNotifications</name>
    <message>
        <source>Context compacted</source>
        <translation>Kontext verdichtet</translation>
    </message>
    <message>
        <source>The conversation goes on from its summary: %1</source>
        <translation>Die Unterhaltung geht von ihrer Zusammenfassung aus weiter: %1</translation>
    </message>
    <message>
        <source>Compaction did not finish</source>
        <translation>Verdichtung nicht abgeschlossen</translation>
    </message>
    <message>
        <source>Reply finished</source>
        <translation>Antwort fertig</translation>
    </message>
    <message>
        <source>The reply failed</source>
        <translation>Die Antwort ist fehlgeschlagen</translation>
    </message>
    <message>
        <source>Run %1?</source>
        <translation>%1 ausführen?</translation>
    </message>
    <message>
        <source>Allow %1 on %2?</source>
        <translation>%1 auf %2 erlauben?</translation>
    </message>
    <message>
        <source>Permission needed</source>
        <translation>Berechtigung erforderlich</translation>
    </message>
    <message>
        <source>The agent has a question</source>
        <translation>Der Agent hat eine Frage</translation>
    </message>
    <message>
        <source>Command finished</source>
        <translation>Befehl beendet</translation>
    </message>
    <message>
        <source>Summary ready to review</source>
        <translation>Zusammenfassung zur Prüfung bereit</translation>
    </message>
    <message>
        <source>Accept, edit or regenerate it before it replaces the conversation.</source>
        <translation>Übernehmen, bearbeiten oder neu erzeugen, bevor sie das Gespräch ersetzt.</translation>
    </message>
</context>
<context>
    <name>keen::SettingsDialog</name>
    <message>
        <source>Provider Settings</source>
        <translation>Anbieter-Einstellungen</translation>
    </message>
    <message>
        <source>&amp;Provider:</source>
        <translation>&amp;Anbieter:</translation>
    </message>
    <message>
        <source>Stored in the system keychain</source>
        <translation>Im Schlüsselbund des Systems gespeichert</translation>
    </message>
    <message>
        <source>API &amp;key:</source>
        <translation>API-&amp;Schlüssel:</translation>
    </message>
    <message>
        <source>&amp;Base URL:</source>
        <translation>&amp;Basis-URL:</translation>
    </message>
    <message>
        <source>One per line: Name: value</source>
        <translation>Einer pro Zeile: Name: Wert</translation>
    </message>
    <message>
        <source>&amp;Headers:</source>
        <translation>&amp;Header:</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>&amp;Modell:</translation>
    </message>
    <message>
        <source>&amp;Thinking effort:</source>
        <translation>&amp;Denkaufwand:</translation>
    </message>
    <message>
        <source>&amp;Test Connection</source>
        <translation>Verbindung &amp;testen</translation>
    </message>
    <message>
        <source>default</source>
        <translation>Standard</translation>
    </message>
    <message>
        <source>Testing...</source>
        <translation>Wird getestet ...</translation>
    </message>
    <message>
        <source>&amp;Remove Stored Key</source>
        <translation>Gespeicherten Schlüssel &amp;entfernen</translation>
    </message>
    <message>
        <source>&amp;Review manual compaction summaries before they apply</source>
        <translation>Zusammenfassungen manueller Verdichtungen vor dem Übernehmen &amp;prüfen</translation>
    </message>
    <message>
        <source>The summary of Compact and /compact opens for editing beside what it replaces; nothing changes until you accept it</source>
        <translation>Die Zusammenfassung von Verdichten und /compact öffnet sich zum Bearbeiten neben dem, was sie ersetzt; nichts ändert sich, bis Sie sie übernehmen</translation>
    </message>
    <message>
        <source>The stored key could not be read: %1</source>
        <translation>Der gespeicherte Schlüssel konnte nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>No key stored.</source>
        <translation>Kein Schlüssel gespeichert.</translation>
    </message>
    <message>
        <source>Stored in keychain %1</source>
        <translation>Im Schlüsselbund %1 gespeichert</translation>
    </message>
    <message>
        <source>Stored unencrypted in %1 %2</source>
        <translation>Unverschlüsselt in %1 %2 gespeichert</translation>
    </message>
    <message>
        <source>Set in settings.json (api_key or api_key_helper).</source>
        <translation>In settings.json festgelegt (api_key oder api_key_helper).</translation>
    </message>
    <message>
        <source>Stored unencrypted in %1 (no system keychain)</source>
        <translation>Unverschlüsselt in %1 gespeichert (kein Systemschlüsselbund)</translation>
    </message>
    <message>
        <source>% of the input budget</source>
        <translation>% des Eingabebudgets</translation>
    </message>
    <message>
        <source>Pinned messages, code and notes travel verbatim after a compaction; a pin that would take more than this is refused</source>
        <translation>Angeheftete Nachrichten, Code und Notizen bleiben nach einer Verdichtung wörtlich erhalten; was mehr als dies belegen würde, wird abgelehnt</translation>
    </message>
    <message>
        <source>&amp;Pins may take up to</source>
        <translation>&amp;Angeheftetes darf bis zu</translation>
    </message>
    <message>
        <source>Context &amp;window:</source>
        <translation>Kontext&amp;fenster:</translation>
    </message>
    <message>
        <source>Set by --context-window for this run</source>
        <translation>Für diesen Start mit --context-window festgelegt</translation>
    </message>
    <message>
        <source>No key stored: the key in use comes from the environment variable %1.</source>
        <translation>Kein Schlüssel gespeichert: Der verwendete Schlüssel stammt aus der Umgebungsvariable %1.</translation>
    </message>
</context>
<context>
    <name>keen::SetupWizard</name>
    <message>
        <source>Welcome to Keen</source>
        <translation>Willkommen bei Keen</translation>
    </message>
    <message>
        <source>Choose a provider</source>
        <translation>Anbieter wählen</translation>
    </message>
    <message>
        <source>Keen talks to a large language model. Pick a hosted provider or a server on this machine.</source>
        <translation>Keen spricht mit einem großen Sprachmodell. Wählen Sie einen gehosteten Anbieter oder einen Server auf diesem Rechner.</translation>
    </message>
    <message>
        <source>Looking for local servers (Ollama, llama.cpp, LM Studio)...</source>
        <translation>Suche nach lokalen Servern (Ollama, llama.cpp, LM Studio) ...</translation>
    </message>
    <message>
        <source>Local servers found</source>
        <translation>Gefundene lokale Server</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>Anbieter</translation>
    </message>
    <message>
        <source>&amp;Provider:</source>
        <translation>&amp;Anbieter:</translation>
    </message>
    <message>
        <source>Key and model</source>
        <translation>Schlüssel und Modell</translation>
    </message>
    <message>
        <source>API &amp;key:</source>
        <translation>API-&amp;Schlüssel:</translation>
    </message>
    <message>
        <source>&amp;Base URL:</source>
        <translation>&amp;Basis-URL:</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>&amp;Modell:</translation>
    </message>
    <message>
        <source>%1 at %2 (%3 models)</source>
        <translation>%1 unter %2 (%3 Modelle)</translation>
    </message>
    <message>
        <source>No local server found.</source>
        <translation>Kein lokaler Server gefunden.</translation>
    </message>
    <message>
        <source>Local servers found:</source>
        <translation>Gefundene lokale Server:</translation>
    </message>
    <message>
        <source>Set in %1</source>
        <translation>Gesetzt in %1</translation>
    </message>
    <message>
        <source>Stored %1</source>
        <translation>Gespeichert %1</translation>
    </message>
    <message>
        <source>Could not ask the server for its models: %1</source>
        <translation>Der Server konnte nicht nach seinen Modellen gefragt werden: %1</translation>
    </message>
    <message>
        <source>The server lists no models; enter the name of one.</source>
        <translation>Der Server nennt keine Modelle; geben Sie den Namen eines Modells ein.</translation>
    </message>
    <message>
        <source>Asking %1 for its models...</source>
        <translation>%1 wird nach seinen Modellen gefragt...</translation>
    </message>
    <message>
        <source>The server has 1 model.</source>
        <translation>Der Server hat 1 Modell.</translation>
    </message>
    <message>
        <source>The server has %1 models.</source>
        <translation>Der Server hat %1 Modelle.</translation>
    </message>
    <message>
        <source>Context &amp;window:</source>
        <translation>Kontext&amp;fenster:</translation>
    </message>
    <message>
        <source>%1 at %2 (1 model)</source>
        <translation>%1 unter %2 (1 Modell)</translation>
    </message>
</context>
<context>
    <name>keen::SpinnerLine</name>
    <message>
        <source>Activity</source>
        <translation>Aktivität</translation>
    </message>
    <message>
        <source>Notification</source>
        <translation>Benachrichtigung</translation>
    </message>
    <message>
        <source>Esc cancels a running compaction, then the turn</source>
        <translation>Esc bricht eine laufende Verdichtung ab, danach den Durchgang</translation>
    </message>
    <message>
        <source>/compact &lt;hint&gt; shapes the summary</source>
        <translation>/compact &lt;Hinweis&gt; lenkt die Zusammenfassung</translation>
    </message>
    <message>
        <source>Shift+Tab cycles build, plan and yolo</source>
        <translation>Umschalt+Tab wechselt zwischen build, plan und yolo</translation>
    </message>
    <message>
        <source>Ctrl+Shift+K compacts the conversation</source>
        <translation>Strg+Umschalt+K verdichtet die Unterhaltung</translation>
    </message>
    <message>
        <source>@ completes file paths of the workspace</source>
        <translation>@ ergänzt Dateipfade des Arbeitsordners</translation>
    </message>
    <message>
        <source>Prompts typed now are queued (up to 5)</source>
        <translation>Jetzt eingegebene Nachrichten warten in der Warteschlange (bis zu 5)</translation>
    </message>
    <message>
        <source>/context shows what fills the context window</source>
        <translation>/context zeigt, was das Kontextfenster füllt</translation>
    </message>
    <message>
        <source>Ctrl+Shift+S opens the session browser</source>
        <translation>Strg+Umschalt+S öffnet die Sitzungsübersicht</translation>
    </message>
    <message>
        <source>/show-thinking hides or shows reasoning</source>
        <translation>/show-thinking blendet den Denkprozess ein oder aus</translation>
    </message>
    <message>
        <source>Up and Down recall earlier prompts</source>
        <translation>Pfeil hoch und runter holen frühere Nachrichten zurück</translation>
    </message>
    <message>
        <source>Compacting...</source>
        <translation>Verdichte ...</translation>
    </message>
    <message>
        <source>Retrying (attempt %1)...</source>
        <translation>Neuer Versuch (Versuch %1)...</translation>
    </message>
    <message>
        <source>Opening session...</source>
        <translation>Sitzung wird geöffnet ...</translation>
    </message>
    <message>
        <source>No data from the provider for %1 s; Esc stops</source>
        <translation>Keine Daten vom Anbieter seit %1 s; Esc bricht ab</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Keen Desktop</source>
        <translation>Keen Desktop</translation>
    </message>
    <message>
        <source>Keen Desktop could not start: %1</source>
        <translation>Keen Desktop konnte nicht starten: %1</translation>
    </message>
</context>
</TS>
