package verify

import (
	"strings"
	"unicode/utf8"

	"github.com/ailab/ai-lab/tools"
)

// The claims of the languages other than English that the sanitizer reads:
// French, German, Spanish, Italian, Portuguese, Dutch and Polish. Each tells
// a finished action with a first-person auxiliary and a participle ("j'ai
// supprimé", "ich habe ... gelöscht", "he eliminado", "ho eliminato", "ik heb
// ... verwijderd"), with a first-person past form of its own ("borré",
// "apaguei", "usunąłem"), or in the passive ("a été supprimé", "wurde
// gelöscht", "fue eliminado", "è stato eliminato", "foi apagado", "werd
// verwijderd", "został usunięty"). The file and web actions are covered:
// read, list, write (create, save), delete (remove), move (rename), copy,
// search, and fetch (visit, open a page).

// A verbKind is what a foreign verb does before its object decides the tool.
type verbKind uint8

const (
	kindNone  verbKind = iota
	kindRead           // read, open: a file, or a page when the object is one
	kindVisit          // visit, download: a page
	kindWrite          // write, create, save: a file, or a folder when one is named
	kindDelete
	kindMove
	kindCopy
	kindSearch
	kindList
	// The deeds (see deeds.go): their object is a person, an amount or a
	// booking, which the claim need not name.
	kindSend
	kindPay
	kindBook
	kindInvite
	kindAdd
	kindSchedule
	kindUpdate
)

// deedOfKind is the deed each deed kind claims.
var deedOfKind = map[verbKind]string{
	kindSend: deedSend, kindPay: deedPay, kindBook: deedBook, kindInvite: deedInvite, kindAdd: deedAdd,
	kindSchedule: deedSchedule, kindUpdate: deedUpdate,
}

func verbSet(kind verbKind, words string, into map[string]verbKind) {
	for _, w := range strings.Fields(words) {
		into[w] = kind
	}
}

// foreignParticiples are the participles that follow an auxiliary, active or
// passive; foreignPast are first-person past forms that need none.
var foreignParticiples, foreignPast = func() (map[string]verbKind, map[string]verbKind) {
	p, s := map[string]verbKind{}, map[string]verbKind{}
	// French
	verbSet(kindRead, "lu lue lus ouvert ouverte consulté consultée", p)
	verbSet(kindVisit, "visité visitée téléchargé téléchargée", p)
	verbSet(kindWrite, "écrit écrite créé créée enregistré enregistrée sauvegardé sauvegardée modifié modifiée", p)
	verbSet(kindDelete, "supprimé supprimée supprimés effacé effacée retiré retirée", p)
	verbSet(kindMove, "déplacé déplacée renommé renommée", p)
	verbSet(kindCopy, "copié copiée dupliqué dupliquée", p)
	verbSet(kindSearch, "cherché recherché", p)
	verbSet(kindList, "listé listés", p)
	// German
	verbSet(kindRead, "gelesen geöffnet", p)
	verbSet(kindVisit, "besucht aufgerufen abgerufen heruntergeladen", p)
	verbSet(kindWrite, "geschrieben erstellt gespeichert angelegt", p)
	verbSet(kindDelete, "gelöscht entfernt", p)
	verbSet(kindMove, "verschoben umbenannt", p)
	verbSet(kindCopy, "kopiert", p)
	verbSet(kindSearch, "gesucht recherchiert gegoogelt", p)
	verbSet(kindList, "aufgelistet", p)
	// Spanish, Portuguese and Italian participles
	verbSet(kindRead, "leído leída lido lida letto letta abierto abierta aberto aberta aperto aperta consultado consultada consultato", p)
	verbSet(kindVisit, "visitado visitada visitato descargado descargada baixado acessado scaricato", p)
	verbSet(kindWrite, "escrito escrita creado creada guardado guardada criado criada salvo salva gravado scritto scritta creato creata salvato salvata", p)
	verbSet(kindDelete, "eliminado eliminada borrado borrada suprimido suprimida apagado apagada excluído excluída removido removida deletado eliminato eliminata cancellato cancellata rimosso rimossa", p)
	verbSet(kindMove, "movido movida renombrado renombrada renomeado renomeada spostato spostata rinominato rinominata", p)
	verbSet(kindCopy, "copiado copiada copiato copiata", p)
	verbSet(kindSearch, "buscado pesquisado procurado cercato", p)
	verbSet(kindList, "listado listada listato elencato", p)
	// Dutch
	verbSet(kindRead, "gelezen geopend", p)
	verbSet(kindVisit, "bezocht gedownload opgehaald", p)
	verbSet(kindWrite, "geschreven aangemaakt gemaakt opgeslagen", p)
	verbSet(kindDelete, "verwijderd gewist", p)
	verbSet(kindMove, "verplaatst hernoemd", p)
	verbSet(kindCopy, "gekopieerd", p)
	verbSet(kindSearch, "gezocht opgezocht gegoogeld", p)
	// Polish passive participles
	verbSet(kindRead, "przeczytany przeczytana przeczytane otwarty otwarta otwarte", p)
	verbSet(kindWrite, "zapisany zapisana zapisane utworzony utworzona utworzone", p)
	verbSet(kindDelete, "usunięty usunięta usunięte skasowany skasowana skasowane", p)
	verbSet(kindMove, "przeniesiony przeniesiona przeniesione", p)
	verbSet(kindCopy, "skopiowany skopiowana skopiowane", p)

	// The deeds' participles, in the same languages.
	verbSet(kindSend, "envoyé envoyée envoyés envoyées transmis transmise", p)
	verbSet(kindPay, "payé payée viré virée versé versée", p)
	verbSet(kindBook, "réservé réservée réservés réservées", p)
	verbSet(kindInvite, "invité invitée invités invitées", p)
	verbSet(kindAdd, "ajouté ajoutée ajoutés ajoutées", p)
	verbSet(kindSchedule, "planifié planifiée programmé programmée", p)
	verbSet(kindUpdate, "actualisé actualisée", p)
	verbSet(kindSend, "gesendet gesandt geschickt verschickt versendet weitergeleitet", p)
	verbSet(kindPay, "überwiesen bezahlt", p)
	verbSet(kindBook, "gebucht reserviert", p)
	verbSet(kindInvite, "eingeladen", p)
	verbSet(kindAdd, "hinzugefügt", p)
	verbSet(kindSchedule, "geplant eingeplant", p)
	verbSet(kindUpdate, "aktualisiert geändert", p)
	verbSet(kindSend, "enviado enviada enviados enviadas inviato inviata spedito spedita", p)
	verbSet(kindPay, "transferido transferida pagado pagada pago paga pagato trasferito", p)
	verbSet(kindBook, "reservado reservada prenotato prenotata", p)
	verbSet(kindInvite, "invitado invitada convidado convidada invitato invitata", p)
	verbSet(kindAdd, "añadido añadida agregado agregada adicionado adicionada aggiunto aggiunta", p)
	verbSet(kindSchedule, "programado programada agendado agendada programmato programmata pianificato pianificata", p)
	verbSet(kindUpdate, "actualizado actualizada atualizado atualizada aggiornato aggiornata", p)
	verbSet(kindSend, "verzonden verstuurd gestuurd doorgestuurd", p)
	verbSet(kindPay, "overgemaakt betaald", p)
	verbSet(kindBook, "geboekt gereserveerd", p)
	verbSet(kindInvite, "uitgenodigd", p)
	verbSet(kindAdd, "toegevoegd", p)
	verbSet(kindSchedule, "ingepland", p)
	verbSet(kindUpdate, "bijgewerkt", p)
	verbSet(kindSend, "wysłany wysłana wysłane", p)
	verbSet(kindBook, "zarezerwowany zarezerwowana zarezerwowane", p)
	verbSet(kindInvite, "zaproszony zaproszona zaproszeni", p)
	verbSet(kindAdd, "dodany dodana dodane", p)
	verbSet(kindSchedule, "zaplanowany zaplanowana zaplanowane", p)
	verbSet(kindUpdate, "zaktualizowany zaktualizowana zaktualizowane", p)

	// Spanish preterite
	verbSet(kindRead, "leí abrí consulté", s)
	verbSet(kindVisit, "visité descargué", s)
	verbSet(kindWrite, "escribí creé guardé", s)
	verbSet(kindDelete, "eliminé borré suprimí", s)
	verbSet(kindMove, "moví renombré", s)
	verbSet(kindCopy, "copié", s)
	verbSet(kindSearch, "busqué", s)
	verbSet(kindList, "listé", s)
	// Portuguese pretérito perfeito
	verbSet(kindRead, "li abri", s)
	verbSet(kindVisit, "visitei acessei baixei", s)
	verbSet(kindWrite, "escrevi criei salvei gravei", s)
	verbSet(kindDelete, "apaguei excluí eliminei removi deletei", s)
	verbSet(kindMove, "movi renomeei", s)
	verbSet(kindCopy, "copiei", s)
	verbSet(kindSearch, "pesquisei procurei busquei", s)
	verbSet(kindList, "listei", s)
	// The deeds' own past forms: Spanish, Portuguese, Polish.
	verbSet(kindSend, "envié enviei wysłałem wysłałam wysłaliśmy", s)
	verbSet(kindPay, "pagué paguei transferí transferi zapłaciłem zapłaciłam przelałem przelałam", s)
	verbSet(kindBook, "reservé reservei zarezerwowałem zarezerwowałam", s)
	verbSet(kindInvite, "invité convidei zaprosiłem zaprosiłam", s)
	verbSet(kindAdd, "añadí agregué adicionei dodałem dodałam", s)
	verbSet(kindSchedule, "programé agendei zaplanowałem zaplanowałam", s)
	verbSet(kindUpdate, "actualicé atualizei zaktualizowałem zaktualizowałam", s)
	// Polish past, masculine and feminine, singular and plural
	verbSet(kindRead, "przeczytałem przeczytałam przeczytaliśmy otworzyłem otworzyłam otworzyliśmy", s)
	verbSet(kindVisit, "odwiedziłem odwiedziłam odwiedziliśmy pobrałem pobrałam pobraliśmy", s)
	verbSet(kindWrite, "zapisałem zapisałam zapisaliśmy utworzyłem utworzyłam utworzyliśmy stworzyłem stworzyłam", s)
	verbSet(kindDelete, "usunąłem usunęłam usunęliśmy skasowałem skasowałam", s)
	verbSet(kindMove, "przeniosłem przeniosłam przenieśliśmy", s)
	verbSet(kindCopy, "skopiowałem skopiowałam skopiowaliśmy", s)
	verbSet(kindSearch, "wyszukałem wyszukałam wyszukaliśmy szukałem szukałam", s)
	verbSet(kindList, "wylistowałem wylistowałam", s)
	return p, s
}()

// foreignAux are the first-person auxiliaries of a finished action;
// pluralAux need their subject beside them, since "Sie haben" is "you have".
var (
	foreignAux     = wordSet("j'ai", "l'ai", "ai", "avons", "habe", "he", "hemos", "ho", "l'ho", "abbiamo", "heb")
	pluralAux      = map[string][]string{"haben": {"wir"}, "hebben": {"we", "wij"}}
	foreignPassive = wordSet("été", "est", "sont", "wurde", "wurden", "worden", "ist", "fue", "fueron", "sido", "stato", "stata", "stati", "state",
		"foi", "foram", "werd", "werden", "is", "zijn", "został", "została", "zostało", "zostały", "zostali")
	foreignNegation = wordSet("ne", "n'ai", "n'avons", "pas", "jamais", "rien", "nicht", "kein", "keine", "nie", "niemals", "no", "non", "não",
		"nunca", "mai", "niet", "geen", "nooit", "nada", "nulla")
	foreignDirNouns = wordSet("dossier", "répertoire", "ordner", "verzeichnis", "carpeta", "directorio", "cartella", "pasta", "diretório",
		"map", "folder", "katalog", "folderu")
	foreignFileNouns = wordSet("fichier", "datei", "archivo", "file", "arquivo", "bestand", "plik", "pliku", "documento", "dokument")
	foreignPageNouns = wordSet("page", "seite", "webseite", "página", "pagina", "site", "sito", "strona", "stronę", "website", "webpagina",
		"artikel", "article", "artículo", "articolo", "artigo", "artykuł")
	foreignWebNouns = wordSet("web", "internet", "internecie", "ligne", "online", "netz", "red", "rete", "sieci")
)

// foreignASCII are the words of the grammar written in ASCII only, but
// "is", which English uses too: one look-up per word is all mayBeForeign
// spends on an English sentence.
var foreignASCII = func() map[string]bool {
	m := map[string]bool{}
	add := func(w string) {
		for i := 0; i < len(w); i++ {
			if w[i] >= utf8.RuneSelf {
				return
			}
		}
		if w != "is" {
			m[w] = true
		}
	}
	for w := range foreignAux {
		add(w)
	}
	for w := range pluralAux {
		add(w)
	}
	for w := range foreignPassive {
		add(w)
	}
	for w := range foreignPast {
		add(w)
	}
	for w := range foreignParticiples {
		add(w)
	}
	return m
}()

// foreignShape holds, for each first two letters, the lengths of the words
// of foreignASCII that start with them, so that most words need no look-up.
var foreignShape = func() (t [32 * 32]uint32) {
	for w := range foreignASCII {
		if len(w) <= 16 {
			t[shapeKey(w)] |= 1 << len(w)
		}
	}
	return t
}()

// shapeKey is where foreignShape keeps a word of two letters or more.
func shapeKey(w string) int { return int(w[0]|0x20)&31<<5 | int(w[1]|0x20)&31 }

// mayBeForeignWord reports whether w, an ASCII word, is one of foreignASCII.
func mayBeForeignWord(w string) bool {
	if len(w) < 2 || len(w) > 16 || foreignShape[shapeKey(w)]&(1<<len(w)) == 0 {
		return false
	}
	var buf [16]byte
	lw := buf[:len(w)]
	for k := range lw {
		lw[k] = w[k] | 0x20
	}
	return foreignASCII[string(lw)]
}

// mayBeForeign is the cheap look that spares English sentences the foreign
// grammar: a letter outside ASCII, or a word of the grammar written in
// ASCII ("Ho eliminato", "Apaguei", "ik heb").
func mayBeForeign(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			return true
		}
		if !isLetter(c) {
			i++
			continue
		}
		j := i
		for j < len(s) && (isLetter(s[j]) || s[j] == '\'') {
			j++
		}
		if mayBeForeignWord(s[i:j]) {
			return true
		}
		i = j
	}
	return false
}

// foreignClaims returns the past actions one sentence tells in a language
// other than English.
func foreignClaims(s string) []pastClaim {
	if !mayBeForeign(s) {
		return nil
	}
	return readForeign(s)
}

// readForeign is foreignClaims without the cheap look first.
func readForeign(s string) []pastClaim {
	ws := sentenceWords(strings.ToLower(strings.ReplaceAll(s, "’", "'")))
	row := strings.HasPrefix(strings.TrimSpace(s), ",") // proseText writes a table's '|' as ','
	var out []pastClaim
	negatedBefore := func(from, to int) bool {
		for k := max(0, from); k < to; k++ {
			if foreignNegation[ws[k]] {
				return true
			}
		}
		return false
	}
	has := func(set []string) bool {
		for _, w := range ws {
			for _, x := range set {
				if w == x {
					return true
				}
			}
		}
		return false
	}
	for i, w := range ws {
		if kind, ok := foreignPast[w]; ok && !negatedBefore(i-2, i) {
			if c, ok := foreignClaim(ws, kind, i, false); ok {
				out = append(out, c)
			}
			continue
		}
		kind, ok := foreignParticiples[w]
		if !ok {
			continue
		}
		if row {
			// A table row that gives a file and a participle is a status
			// report: "| config.yaml | nach config.bak.yaml kopiert ✅ |".
			if c, ok := foreignClaim(ws, kind, i, true); ok {
				out = append(out, c)
			}
			continue
		}
		// The auxiliary before the participle, up to ten words back: "ich
		// habe die Datei notes.txt gelöscht".
		for k := i - 1; k >= 0 && k >= i-10; k-- {
			a := ws[k]
			active := foreignAux[a] || pluralAux[a] != nil && has(pluralAux[a])
			// "se ha copiado": the reflexive passive of Spanish.
			reflexive := (a == "ha" || a == "han") && k > 0 && ws[k-1] == "se"
			if !active && !foreignPassive[a] && !reflexive {
				continue
			}
			if negatedBefore(k-2, i) {
				break
			}
			if c, ok := foreignClaim(ws, kind, i, !active); ok {
				out = append(out, c)
			}
			break
		}
	}
	return out
}

// foreignClaim makes the claim of a verb of kind at ws[at], choosing the tool
// by the object the sentence names. A passive needs a named object, as do
// the file actions; a search needs none.
func foreignClaim(ws []string, kind verbKind, at int, passive bool) (pastClaim, bool) {
	object := ""
	class := objNone
	for _, w := range ws {
		switch {
		case foreignDirNouns[w]:
			if class == objNone {
				class = objDir
			}
		case foreignFileNouns[w]:
			if class == objNone {
				class = objFile
			}
		case foreignPageNouns[w]:
			if class == objNone {
				class = objPage
			}
		case foreignWebNouns[w]:
			if class == objNone {
				class = objWeb
			}
		case strings.HasPrefix(w, "http://") || strings.HasPrefix(w, "https://") || strings.HasPrefix(w, "www.") || isDomain(w):
			if object == "" {
				object, class = w, objPage
			}
		case isFileName(w):
			if object == "" {
				object = w
				if class != objDir {
					class = objFile
				}
			}
		}
	}
	if deed, ok := deedOfKind[kind]; ok {
		return pastClaim{tool: deed, at: -1}, true
	}
	if passive && object == "" && class == objNone {
		return pastClaim{}, false
	}
	tool := ""
	switch kind {
	case kindRead:
		switch class {
		case objPage, objWeb:
			tool = tools.ReadWebpage
		case objFile:
			tool = tools.ReadFile
		case objDir:
			tool = tools.ListDirectory
		}
	case kindVisit:
		tool = tools.ReadWebpage
	case kindWrite:
		switch class {
		case objDir:
			tool = tools.CreateDirectory
		case objFile:
			tool = tools.WriteFile
		}
	case kindDelete, kindMove, kindCopy:
		if class == objFile || class == objDir {
			tool = map[verbKind]string{kindDelete: tools.DeleteFile, kindMove: tools.MoveFile, kindCopy: tools.CopyFile}[kind]
		}
	case kindSearch:
		tool = tools.WebSearch
		if class == objFile || class == objDir {
			tool = tools.ListDirectory
		}
	case kindList:
		tool = tools.ListDirectory
	}
	if tool == "" {
		return pastClaim{}, false
	}
	if tool == tools.WebSearch || tool == tools.ListDirectory {
		object = "" // a listing's or a search's object is a folder or a query, not the names it found
	}
	return pastClaim{tool: tool, object: object, at: -1}, true
}
