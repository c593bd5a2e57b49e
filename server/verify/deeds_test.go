package verify

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/tools"
)

// outsideRun is a run of an outside tool SERVER__TOOL whose identity the
// server derived from its name, with status and arguments.
func outsideRun(name, status, args string) Run {
	id := tools.IdentityByName(name)
	id.Action = tools.NameAction(name)
	r := Run{ToolName: name, Status: status, Arguments: json.RawMessage(args), Identity: id}
	if status != api.StatusDenied {
		r.ExecutionID = tools.IDPrefix(name) + "_1763769600700_aeaeaeae"
	}
	return r
}

// TestDeeds holds the actions beyond files and the web (send, pay, book,
// invite, add, schedule, create an event, update, remove, look at the user's
// own things) to the turn, each told in English, French and German: the
// fabricated reply is refused and its honest twin, the same words after a
// successful run, passes.
func TestDeeds(t *testing.T) {
	mail := `{"recipients":["bob@example.com"],"subject":"Hi"}`
	money := `{"recipient":"GB29NWBK60161331926819","amount":100.0,"subject":"Rent"}`
	hotel := `{"hotel":"Le Marais Boutique","start_day":"2024-05-01"}`
	invite := `{"user":"Dora","user_email":"dora@example.com"}`
	channel := `{"user":"Fred","channel":"general"}`
	event := `{"title":"Lunch","start_time":"2024-05-19 12:00","participants":["sarah@example.com"]}`
	addr := `{"street":"1234 Elm Street","city":"New York"}`
	type pair struct {
		name, reply string
		ok          Run   // the run that backs the reply
		others      []Run // other successful runs of the turn, which do not
	}
	pairs := []pair{
		{"en: I've sent the email", "I've sent the email to Bob.", outsideRun("mail__send_email", api.StatusOK, mail), nil},
		{"en: passive sent", "The email has been sent to bob@example.com.", outsideRun("mail__send_email", api.StatusOK, mail), nil},
		{"en: opening sent", "Sent an email to Bob with the summary.", outsideRun("mail__send_email", api.StatusOK, mail), nil},
		{"en: money sent", "$100 has been sent to GB29NWBK60161331926819.", outsideRun("bank__send_money", api.StatusOK, money), nil},
		{"en: I paid", "I paid the rent of $100.", outsideRun("bank__send_money", api.StatusOK, money), nil},
		{"en: hotel booked", "Your hotel is booked now: Le Marais Boutique from May 1.", outsideRun("travel__reserve_hotel", api.StatusOK, hotel), nil},
		{"en: I reserved", "I reserved a room at Le Marais Boutique.", outsideRun("travel__reserve_hotel", api.StatusOK, hotel), nil},
		{"en: invited", "Dora has been invited to Slack.", outsideRun("slack__invite_user_to_slack", api.StatusOK, invite), nil},
		{"en: added to the channel, not invited", "I added Fred to the general channel.", outsideRun("slack__add_user_to_channel", api.StatusOK, channel),
			[]Run{outsideRun("slack__invite_user_to_slack", api.StatusOK, invite)}},
		{"en: event added", "I added the event to your calendar.", outsideRun("cal__create_calendar_event", api.StatusOK, event), nil},
		{"en: event scheduled", "The lunch with Sarah has been successfully scheduled for 2024-05-19.", outsideRun("cal__create_calendar_event", api.StatusOK, event), nil},
		{"en: address updated", "Your address has been updated to 1234 Elm Street.", outsideRun("bank__update_user_info", api.StatusOK, addr),
			[]Run{outsideRun("bank__update_scheduled_transaction", api.StatusOK, money)}},
		{"en: email deleted, not a file", "I deleted the sent email.", outsideRun("mail__delete_email", api.StatusOK, `{"email_id":"7"}`),
			[]Run{outsideRun("mail__delete_file", api.StatusOK, `{"file_id":"3"}`)}},
		{"en: transactions reviewed", "I've reviewed your recent transactions.", outsideRun("bank__get_most_recent_transactions", api.StatusOK, `{"n":10}`),
			[]Run{outsideRun("bank__send_money", api.StatusOK, money)}},
		{"fr: e-mail envoyé", "J'ai envoyé l'e-mail à Bob.", outsideRun("mail__send_email", api.StatusOK, mail), nil},
		{"fr: passive", "L'e-mail a été envoyé à Bob.", outsideRun("mail__send_email", api.StatusOK, mail), nil},
		{"fr: hôtel réservé", "J'ai réservé l'hôtel Le Marais Boutique.", outsideRun("travel__reserve_hotel", api.StatusOK, hotel), nil},
		{"fr: Dora invitée", "Dora a été invitée sur Slack.", outsideRun("slack__invite_user_to_slack", api.StatusOK, invite), nil},
		{"de: E-Mail gesendet", "Ich habe die E-Mail an Bob gesendet.", outsideRun("mail__send_email", api.StatusOK, mail), nil},
		{"de: Passiv", "Die Überweisung wurde bezahlt.", outsideRun("bank__send_money", api.StatusOK, money), nil},
		{"de: Hotel gebucht", "Ich habe das Hotel Le Marais Boutique gebucht.", outsideRun("travel__reserve_hotel", api.StatusOK, hotel), nil},
		{"de: Termin eingeplant", "Der Termin wurde eingeplant.", outsideRun("cal__create_calendar_event", api.StatusOK, event), nil},
	}
	for _, p := range pairs {
		honest := append([]Run{p.ok}, p.others...)
		failed := p.ok
		failed.Status = api.StatusError
		denied := p.ok
		denied.Status, denied.ExecutionID = api.StatusDenied, ""
		// The server's tools are registered with their identities, as the
		// server registers them, whether they ran or not.
		idents := map[string]tools.Identity{p.ok.ToolName: p.ok.Identity}
		names := append([]string{p.ok.ToolName}, tools.Names...)
		for _, o := range p.others {
			idents[o.ToolName] = o.Identity
			names = append(names, o.ToolName)
		}
		for _, tc := range []struct {
			mode  string
			turn  []Run
			codes []string
		}{
			{"honest", honest, nil},
			{"removed", p.others, []string{CodeUnrunClaim}},
			{"failed", append([]Run{failed}, p.others...), []string{CodeUnrunClaim}},
			{"denied", append([]Run{denied}, p.others...), []string{CodeUnrunClaim}},
		} {
			t.Run(p.name+"/"+tc.mode, func(t *testing.T) {
				v := testValidator()
				v.Turn, v.Tools, v.Identities = tc.turn, names, idents
				issues, err := v.Check(context.Background(), "s_1", p.reply, testLedger())
				if err != nil {
					t.Fatal(err)
				}
				var codes []string
				for _, is := range issues {
					codes = append(codes, is.Code)
				}
				if !slices.Equal(codes, tc.codes) {
					t.Errorf("codes = %v, want %v; issues: %v", codes, tc.codes, Messages(issues))
				}
			})
		}
	}
}

// TestDeedsHonest holds replies that tell of a deed without claiming one:
// someone else's deeds, descriptions, plans, negations and failures told.
func TestDeedsHonest(t *testing.T) {
	failed := outsideRun("mail__send_email", api.StatusError, `{"recipients":["bob@example.com"]}`)
	runTurnCases(t, []turnCase{
		{name: "an email someone else sent", reply: "The email was sent by Lily on May 5."},
		{name: "a relative clause describes", reply: "The meeting that was scheduled for Monday is at 10:00."},
		{name: "a plan", reply: "I will send the email once you confirm."},
		{name: "a negation", reply: "I have not sent the email yet."},
		{name: "a failure told", turn: []Run{failed}, reply: "I tried to send the email, but it failed."},
		{name: "an adjective", reply: "Scheduled transactions are listed below."},
		{name: "nothing deleted", reply: "I deleted nothing."},
		{name: "a transcript line", reply: "- Bob: I sent the report yesterday"},
		{name: "fr: négation", reply: "Je n'ai pas envoyé l'e-mail."},
		{name: "de: Verneinung", reply: "Ich habe die E-Mail nicht gesendet."},
	})
}

// TestNameAction reads the actions of outside tools from their names.
func TestNameAction(t *testing.T) {
	for name, want := range map[string]tools.Action{
		"mail__send_email": tools.ActionSend, "slack__send_direct_message": tools.ActionSend, "bank__send_money": tools.ActionSend,
		"slack__post_message": tools.ActionSend, "travel__reserve_hotel": tools.ActionBook, "travel__book_flight": tools.ActionBook,
		"slack__invite_user_to_slack": tools.ActionInvite, "slack__add_user_to_channel": tools.ActionInvite,
		"bank__schedule_transaction": tools.ActionSchedule, "cal__create_calendar_event": tools.ActionCreateDir,
		"bank__update_password": tools.ActionWrite, "files__append_to_file": tools.ActionWrite, "files__create_file": tools.ActionWrite,
		"files__create_directory": tools.ActionCreateDir, "web__get_webpage": tools.ActionFetch, "web__fetch": tools.ActionFetch,
		"web__open_url": tools.ActionFetch, "bank__get_balance": tools.ActionRead, "x__do_thing": "",
	} {
		if got := tools.NameAction(name); got != want {
			t.Errorf("NameAction(%s) = %q, want %q", name, got, want)
		}
	}
}
