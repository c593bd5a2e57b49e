package websearch

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

// encode turns UTF-8 text into the bytes a legacy-encoded page would carry.
func encode(t *testing.T, enc encoding.Encoding, s string) string {
	t.Helper()
	b, err := enc.NewEncoder().String(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// padding is an ASCII head longer than the standard's 1024-byte prescan.
var padding = "<script>" + strings.Repeat("var analytics = {};\n", 80) + "</script>"

func TestSniffCharset(t *testing.T) {
	utf16 := encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), "<p>Grüße</p>")
	tests := []struct {
		name        string
		contentType string
		body        string
		wantName    string
		wantSource  charsetSource
		wantText    string // must be in the decoded body
	}{
		{"header charset wins over meta and UTF-8",
			"text/html; charset=ISO-8859-1", `<meta charset="utf-8"><p>Caf` + "\xc3\xa9</p>",
			"windows-1252", fromHeader, "CafÃ©"},
		{"UTF-8 BOM wins over header",
			"text/html; charset=iso-8859-1", "\xef\xbb\xbf<p>Caf\xc3\xa9</p>",
			"utf-8", fromBOM, "<p>Café</p>"},
		{"UTF-16 BOM",
			"text/html", utf16,
			"utf-16le", fromBOM, "Grüße"},
		{"meta past 1024 bytes",
			"text/html", "<html><head>" + padding + `<meta charset="iso-8859-2"><title>` + "\xa3\xf3d\xbc</title>",
			"iso-8859-2", fromMeta, "Łódź"},
		{"meta utf-8 past 1024 bytes",
			"text/html", "<html><head>" + padding + `<meta http-equiv="Content-Type" content="text/html; charset=UTF-8"></head><body>Köln`,
			"utf-8", fromMeta, "Köln"},
		{"meta windows-1252 with an ASCII body",
			"text/html", `<meta charset="windows-1252"><p>plain ASCII, valid UTF-8 too</p>`,
			"windows-1252", fromMeta, "plain ASCII"},
		{"meta windows-1252 wins over UTF-8-looking bytes",
			"text/html", `<meta charset="windows-1252"><p>Caf` + "\xc3\xa9</p>",
			"windows-1252", fromMeta, "CafÃ©"},
		{"stale meta on a page saved as UTF-8",
			"text/html", `<meta charset="gb2312"><p>这是一个中文网页</p>`,
			"utf-8", fromUTF8OverDeclared, "这是一个中文网页"},
		{"stale XML declaration on a page saved as UTF-8",
			"application/xhtml+xml", `<?xml version="1.0" encoding="ISO-8859-1"?><p>Grüße aus Köln, schön</p>`,
			"utf-8", fromUTF8OverDeclared, "Grüße aus Köln, schön"},
		{"a declared legacy page is not UTF-8 by accident",
			"text/html", `<meta charset="windows-1252"><p>` + encode(t, charmap.Windows1252, "Crème brûlée à la carte, déjà vu, naïve") + "</p>",
			"windows-1252", fromMeta, "Crème brûlée à la carte"},
		{"no declaration, valid UTF-8",
			"text/html", "<html><head>" + padding + "</head><body><p>Grüße aus Köln</p>",
			"utf-8", fromUTF8, "Grüße aus Köln"},
		{"no declaration, UTF-8 with a stray byte stays UTF-8",
			"text/html", "<p>Вчера вечером в городе прошёл сильный дождь \xff и многие улицы были затоплены.</p>",
			"utf-8", fromGuess, "Вчера вечером в городе прошёл сильный дождь \uFFFD и многие"},
		{"no declaration, invalid UTF-8 is windows-1252",
			"text/html", "<p>Caf\xe9 cr\xe8me \x93quoted\x94</p>",
			"windows-1252", fromGuess, "Café crème “quoted”"},
		{"Shift_JIS meta",
			"text/html", `<meta http-equiv="content-type" content="text/html; charset=Shift_JIS"><p>` + encode(t, japanese.ShiftJIS, "日本語のページ") + "</p>",
			"shift_jis", fromMeta, "日本語のページ"},
		{"GBK meta past 1024 bytes",
			"text/html", "<head>" + padding + `<meta charset="gbk"><title>` + encode(t, simplifiedchinese.GBK, "中文网页") + "</title>",
			"gbk", fromMeta, "中文网页"},
		{"gb2312 label reads as GBK",
			"text/html", `<meta charset=gb2312><p>` + encode(t, simplifiedchinese.GBK, "中文") + "</p>",
			"gbk", fromMeta, "中文"},
		{"XML declaration",
			"application/xhtml+xml", `<?xml version="1.0" encoding="ISO-8859-1"?><html><p>Caf` + "\xe9</p>",
			"windows-1252", fromXMLDecl, "Café"},
		{"meta comes before the XML declaration in HTML",
			"text/html", `<?xml version="1.0" encoding="utf-8"?><html><head><meta charset="iso-8859-2"><p>` + "\xa3\xf3d\xbc",
			"iso-8859-2", fromMeta, "Łódź"},
		{"content charset without http-equiv is no declaration",
			"text/html", `<meta name="x" content="text/html; charset=iso-8859-2"><p>Köln</p>`,
			"utf-8", fromUTF8, "Köln"},
		{"meta in a script is no declaration",
			"text/html", `<script>document.write('<meta charset="iso-8859-2">')</script><p>Köln</p>`,
			"utf-8", fromUTF8, "Köln"},
		{"meta in the body past 1024 bytes is no declaration",
			"text/html", "<html><head></head><body><p>" + strings.Repeat("Köln ", 300) + `</p><meta charset="iso-8859-2">`,
			"utf-8", fromUTF8, "Köln"},
		{"meta utf-16 means utf-8",
			"text/html", `<meta charset="utf-16"><p>Köln</p>`,
			"utf-8", fromMeta, "Köln"},
		{"unknown header label falls through",
			"text/html; charset=no-such-charset", "<p>Köln</p>",
			"utf-8", fromUTF8, "Köln"},
		{"body cut inside a character is still UTF-8",
			"text/html", "<p>Köln and Grüße" + "\xc3",
			"utf-8", fromUTF8, "Köln and Grüße\uFFFD"},
		{"plain text ignores meta",
			"text/plain", `<meta charset="iso-8859-2"> Köln`,
			"utf-8", fromUTF8, "Köln"},
		{"plain text, invalid UTF-8",
			"text/plain", "Caf\xe9",
			"windows-1252", fromGuess, "Café"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := sniffCharset([]byte(tt.body), tt.contentType)
			if d.name != tt.wantName || d.source != tt.wantSource {
				t.Errorf("sniffCharset = %s from %s, want %s from %s", d.name, d.source, tt.wantName, tt.wantSource)
			}
			got := toUTF8([]byte(tt.body), tt.contentType)
			if !strings.Contains(got, tt.wantText) {
				t.Errorf("decoded %q, want it to contain %q", got, tt.wantText)
			}
			if !utf8.ValidString(got) {
				t.Errorf("decoded text is not UTF-8: %q", got)
			}
		})
	}
}

// metaCharsetAt finds where a page's first <meta ... charset> starts.
var metaCharsetAt = regexp.MustCompile(`(?i)<meta[^>]*charset`)

// TestFetchRealPagesWithLateMeta serves real pages whose <meta charset="utf-8">
// sits past the first 1024 bytes, as a server that sends only "text/html"
// would, and checks that read_webpage reads them as UTF-8.
func TestFetchRealPagesWithLateMeta(t *testing.T) {
	pages := map[string]corpusPage{}
	for _, p := range loadCorpus(t) {
		pages[p.name] = p
	}
	for _, name := range []string{"ars-1", "buzzfeed-1", "ehow-2", "gmw", "lifehacker-post-comment-load", "lifehacker-working", "pixnet", "webmd-1", "webmd-2", "wordpress", "youth"} {
		t.Run(name, func(t *testing.T) {
			p, ok := pages[name]
			if !ok {
				t.Fatalf("%s is not in the corpus", name)
			}
			loc := metaCharsetAt.FindIndex(p.source)
			if loc == nil || loc[0] < prescanBytes {
				t.Fatalf("meta charset at %v, want past byte %d", loc, prescanBytes)
			}
			want := extractArticle(p.source, corpusURL(name)).text
			if utf8.RuneCountInString(want) == len(want) {
				t.Fatal("the article is all ASCII; it cannot tell encodings apart")
			}
			srv := pageServer(t, serveBody("text/html", p.source))
			got, err := NewFetcher(FetchOptions{AllowPrivate: true}).Fetch(context.Background(), srv.URL+"/"+name)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != want {
				t.Errorf("text read over HTTP differs from the UTF-8 reading; starts %q", prefix(got.Text, 200))
			}
		})
	}
}

// TestDecodeCorpusWithoutCharsetHeader reads every corpus page (all saved as
// UTF-8) as if the server had sent just "text/html".
func TestDecodeCorpusWithoutCharsetHeader(t *testing.T) {
	for _, p := range loadCorpus(t) {
		d := sniffCharset(p.source, "text/html")
		if p.name == "qq" {
			// Saved as UTF-8 but still declaring gb2312: a browser believes the
			// declaration and shows mojibake; the bytes are evidently UTF-8.
			if d.name != "utf-8" || d.source != fromUTF8OverDeclared {
				t.Errorf("qq: %s from %s, want utf-8 over its stale meta", d.name, d.source)
			}
		}
		if d.name != "utf-8" {
			t.Errorf("%s: read as %s (from %s), want utf-8", p.name, d.name, d.source)
		}
		if got := toUTF8(p.source, "text/html"); !bytes.Equal([]byte(got), bytes.TrimPrefix(p.source, []byte("\xef\xbb\xbf"))) {
			t.Errorf("%s: decoding changed the page", p.name)
		}
	}
}

func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

func FuzzSniffCharset(f *testing.F) {
	f.Add([]byte(`<meta charset="shift_jis">`+"\x93\xfa"), "text/html")
	f.Add([]byte("<html><head>"+padding+`<meta http-equiv=content-type content="text/html;charset=gbk">`), "")
	f.Add([]byte("\xff\xfe<\x00p\x00"), "text/html; charset=utf-8")
	f.Add([]byte(`<?xml version="1.0" encoding='iso-8859-2'?>`+"\xa3"), "application/xhtml+xml")
	f.Add([]byte("Caf\xe9 \xc3"), "text/plain; charset=")
	f.Add([]byte(`<meta charset="utf-16be"><meta content="charset='x`), `text/html; charset="utf-16"`)
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		d := sniffCharset(body, contentType)
		if d.enc == nil || d.name == "" || d.source == "" {
			t.Fatalf("no decision: %+v", d)
		}
		got := toUTF8(body, contentType)
		if !utf8.ValidString(got) {
			t.Fatalf("decoded text is not UTF-8: %q", got)
		}
		if d.source == fromUTF8 && utf8.Valid(body) && got != string(body) {
			t.Fatalf("valid UTF-8 body changed: %q -> %q", body, got)
		}
	})
}

// TestGuessLegacyEncoding serves paragraphs in the legacy encodings of their
// languages with no declaration anywhere, after more than 8 KB of ASCII head (the
// detector reads no more than that), and checks that the guess reads them.
func TestGuessLegacyEncoding(t *testing.T) {
	head := "<html><head>" + strings.Repeat(padding, 10) + "</head><body>"
	tests := []struct {
		label string
		text  string
	}{
		{"windows-1251", "Вчера вечером в городе прошёл сильный дождь, и многие улицы были затоплены. Жители говорят, что такого не было уже много лет, а городские службы работали всю ночь."},
		{"koi8-r", "Новая библиотека откроется в центре города осенью. В ней будет читальный зал, детский отдел и большая коллекция старых книг и газет."},
		{"shift_jis", "昨日の夜、東京では大雨が降り、多くの電車が止まりました。駅には帰れない人がたくさん集まり、朝まで待つ人もいました。"},
		{"euc-jp", "この町の図書館は来月から新しい建物に移ります。子ども向けの本も増え、週末には読み聞かせの会が開かれる予定です。"},
		{"euc-kr", "어제 저녁 서울에는 많은 비가 내려 여러 도로가 통제되었습니다. 시민들은 이렇게 많은 비는 처음 본다고 말했습니다."},
		{"gb18030", "昨天晚上，这座城市下了一场大雨，许多街道被水淹没。居民们说，这样的大雨已经很多年没有见过了，工人们整夜都在工作。"},
		{"big5", "這座城市的新圖書館將在秋天開放，裡面有閱覽室、兒童區，還有許多舊書和舊報紙的收藏，歡迎市民前來參觀。"},
		{"iso-8859-7", "Χθες το βράδυ έπεσε δυνατή βροχή στην πόλη και πολλοί δρόμοι πλημμύρισαν. Οι κάτοικοι λένε ότι δεν έχουν δει κάτι τέτοιο εδώ και χρόνια."},
		{"windows-1256", "هطلت أمطار غزيرة على المدينة مساء أمس، وغمرت المياه كثيرا من الشوارع. وقال السكان إنهم لم يروا مثل هذا المطر منذ سنوات طويلة."},
		{"windows-874", "เมื่อคืนนี้ฝนตกหนักในกรุงเทพ ถนนหลายสายมีน้ำท่วมขัง ชาวบ้านบอกว่าไม่เคยเห็นฝนตกหนักแบบนี้มาหลายปีแล้ว"},
		{"windows-1255", "אתמול בערב ירד גשם כבד בעיר ורחובות רבים הוצפו. התושבים אומרים שלא ראו גשם כזה כבר שנים רבות."},
		{"windows-1252", "Hier soir, une forte pluie est tombée sur la ville et de nombreuses rues ont été inondées. Les habitants disent qu'ils n'avaient pas vu ça depuis des années."},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			enc, _ := charset.Lookup(tt.label)
			body := head + "<p>" + encode(t, enc, tt.text) + "</p><p>" + encode(t, enc, tt.text) + "</p></body></html>"
			d := sniffCharset([]byte(body), "text/html")
			if d.source != fromGuess {
				t.Fatalf("decided by %s, want a guess", d.source)
			}
			if got := toUTF8([]byte(body), "text/html"); !strings.Contains(got, tt.text) {
				t.Errorf("read as %s: %q", d.name, prefix(got[len(head):], 200))
			}
		})
	}
}

// TestGuessNeedsEvidence: a few symbols name no single-byte encoding (the
// detector calls these KOI8-R with confidence 98), while a Japanese title of 15
// characters is enough for Shift_JIS.
func TestGuessNeedsEvidence(t *testing.T) {
	symbols := "<p>x " + encode(t, charmap.Windows1252, "±") + " 2 " + encode(t, charmap.Windows1252, "×") + " y\n" +
		encode(t, charmap.Windows1252, "…") + "\n" + encode(t, charmap.Windows1252, "×") + "</p>"
	if d := sniffCharset([]byte(symbols), "text/html"); d.name != "windows-1252" {
		t.Errorf("a few symbols read as %s, want windows-1252", d.name)
	}
	title := "<title>" + encode(t, japanese.ShiftJIS, "東京の天気予報です。明日は晴れ") + "</title><p>weather</p>"
	if d := sniffCharset([]byte(title), "text/html"); d.name != "shift_jis" {
		t.Errorf("a Shift_JIS title read as %s", d.name)
	}
}
