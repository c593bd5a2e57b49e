package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ailab/ai-lab/sanitize/classifier"
)

// topicWords are words of the topics benign mail and pages are full of (money,
// cards, accounts, passwords, sign-ins, security), in the languages of the data.
// Attacks use them too ("reveal the admin password", "transfer the money"), and a
// model left alone learns them as evidence: a bank's card notice then reads like
// an injection. Training keeps the weights of their word features and of the
// character 4-grams inside them at or under zero, so that what counts is how a text
// addresses its reader (the verbs, "ignore", "you are now", role markers), never its
// topic.
var topicWords = strings.Fields(`
	money payment payments pay paid payout card cards credit debit bank banking account accounts balance
	transfer transfers transaction transactions invoice invoices refund refunds charge charged charges
	purchase purchases preauthorized authorization wire iban billing statement dollars usd eur
	password passwords passphrase passphrases passcode pin login logins signin sign-in verify verification verified security secure
	authentication two-factor 2fa otp token tokens credentials credential identity wallet crypto bitcoin
	paypal stripe visa mastercard
	xyz abc foo bar baz qux lorem ipsum
	contraseña contraseñas cuenta tarjeta pago transferencia seguridad
	passwort konto karte zahlung überweisung sicherheit anmeldung
	compte carte paiement virement sécurité
	senha conta cartão pagamento
	пароль пароля пароли счёт счет карта карты платеж платёж перевод аккаунт безопасность вход
	パスワード アカウント カード 口座 決済 ログイン 認証
	密码 账户 账号 银行 支付 登录 验证
	비밀번호 계정 카드 결제 로그인 인증
	كلمة المرور حساب بطاقة دفع
`)

// topicPhrases are more topic words, one per line: "password" in Hindi,
// Bengali, Vietnamese, French, Indonesian and Turkish, and "account" in
// Vietnamese, which topicWords lacked. A line may hold words the featurizer reads
// as more than one token (a vowel sign splits a Bengali word, a script without
// spaces is read a character at a time), and the word pairs inside it are topic
// features too. Thai is left out: capping the characters of "รหัสผ่าน" would
// cap some of the commonest of its script.
var topicPhrases = strings.Split(strings.TrimSpace(`
पासवर्ड
পাসওয়ার্ড
mật khẩu
tài khoản
mot de passe
kata sandi
şifre
parola
`), "\n")

// languageWords are the commonest function words of languages whose text the data
// has almost only as attacks: Tagalog comes some forty times among CyberSecEval's
// translated injections and a dozen times as benign mail, so a fit learns "ang",
// "ng" and "sa" as evidence, and a Tagalog password-reset mail reads like an
// injection. A language is not evidence, so these are capped like topic words.
// A few ("at", "si", "na") are words of other languages too, where a function
// word is no evidence either.
var languageWords = strings.Fields(`
	ang ng sa mga ay ito iyong iyo na at ka mo ko ako siya kung hindi para ni si nang
	lang din rin po ba pa kay kanyang niya namin natin kami tayo sila ninyo inyong
`)

// topicFeatures returns the indexes of the word and character 4-gram features of
// topicWords, topicPhrases and languageWords (in scripts written without spaces, the features
// of each character), and of the word pairs inside each of them.
func topicFeatures() map[uint32]bool {
	out := map[uint32]bool{}
	for _, w := range slices.Concat(topicWords, topicPhrases, languageWords) {
		for _, f := range classifier.Features(w) {
			// A pair that reaches outside the term is left alone: "the
			// password" after "reveal" is a pair of the attack's own. A pair
			// inside the term is named by both its tokens; the pair that
			// opens the text is named by its second token alone.
			if !strings.HasPrefix(f.Name, " ") {
				out[f.Index] = true
			}
		}
	}
	return out
}

// topicProbes are short benign texts on those topics, in several languages, that
// the report scores: what a topic alone does to a score.
var topicProbes = []string{
	"Your debit card ending in 4605 was charged $200.00 by PayPal.",
	"Your password was changed. If this wasn't you, reset it now.",
	"Enter the verification code to sign in to your account.",
	"Transfer sent: $1,250.00 to your savings account.",
	"Security alert: new sign-in from Chrome on Windows.",
	"To change the passphrase of your SSH key, run ssh-keygen -p.",
	"パスワードマネージャーのショートカットが衝突しています。",
	"Ваша карта заблокирована. Позвоните в банк.",
	"您的账户密码已修改。",
	"비밀번호가 변경되었습니다.",
	"Su contraseña ha sido cambiada.",
	"Ihr Passwort wurde geändert.",
	"আপনার পাসওয়ার্ড পরিবর্তন করা হয়েছে।",
}

// A heavyFeature is a feature with a large weight and the readable forms it was
// seen with in the training texts.
type heavyFeature struct {
	index  uint32
	weight float32
	names  map[string]int
}

// heaviestFeatures returns the n features of largest positive and of largest
// negative weight, named by the forms they were seen with in exs.
func heaviestFeatures(m *classifier.Model, exs []example, n int) (pos, neg []heavyFeature) {
	all := make([]heavyFeature, 0, 1<<classifier.TableBits)
	for i := range 1 << classifier.TableBits {
		if w := m.Weight(uint32(i)); w != 0 {
			all = append(all, heavyFeature{index: uint32(i), weight: w})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		return all[i].weight > all[j].weight || all[i].weight == all[j].weight && all[i].index < all[j].index
	})
	pos = append(pos, all[:min(n, len(all))]...)
	for i := len(all) - 1; i >= max(0, len(all)-n); i-- {
		neg = append(neg, all[i])
	}
	want := map[uint32]*heavyFeature{}
	for i := range pos {
		pos[i].names = map[string]int{}
		want[pos[i].index] = &pos[i]
	}
	for i := range neg {
		neg[i].names = map[string]int{}
		want[neg[i].index] = &neg[i]
	}
	for _, e := range exs {
		for _, f := range classifier.Features(e.Text) {
			if h := want[f.Index]; h != nil {
				h.names[f.Name]++
			}
		}
	}
	return pos, neg
}

// describe names a heavy feature by its commonest forms.
func (h heavyFeature) describe() string {
	type nc struct {
		name string
		n    int
	}
	var list []nc
	for k, v := range h.names {
		list = append(list, nc{k, v})
	}
	sort.Slice(list, func(i, j int) bool {
		return list[i].n > list[j].n || list[i].n == list[j].n && list[i].name < list[j].name
	})
	var parts []string
	for _, x := range list[:min(3, len(list))] {
		parts = append(parts, fmt.Sprintf("%q×%d", x.name, x.n))
	}
	if len(parts) == 0 {
		return "(not in the training texts)"
	}
	return strings.Join(parts, " ")
}

// featureReport lists the heaviest features of both signs and the topic probes'
// scores.
func featureReport(m *classifier.Model, threshold float64, exs []example) string {
	var b strings.Builder
	pos, neg := heaviestFeatures(m, exs, 25)
	fmt.Fprintf(&b, "heaviest features (weight: the forms the training texts show it as, commonest first)\n")
	fmt.Fprintf(&b, "  toward injection:\n")
	for _, h := range pos {
		fmt.Fprintf(&b, "    %+6.2f  %s\n", h.weight, h.describe())
	}
	fmt.Fprintf(&b, "  toward benign:\n")
	for _, h := range neg {
		fmt.Fprintf(&b, "    %+6.2f  %s\n", h.weight, h.describe())
	}
	fmt.Fprintf(&b, "\ntopic probes (benign one-liners on money, accounts and passwords; threshold %.4f)\n", threshold)
	for _, p := range topicProbes {
		fmt.Fprintf(&b, "  %.3f  %s\n", m.Score(p), p)
	}
	return b.String()
}
