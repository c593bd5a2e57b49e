package main

import (
	"math/rand/v2"
)

// requestMails generates whole emails, written for this project, whose point is a
// request to the reader: update the billing details, pick a meeting slot, finish a
// training, install an update, send a form back, confirm a booking. Left out of
// training, own.go's request emails were flagged one time in eight: a polite order
// to the reader, with "instructions", "ignore" or "assistant" near it, read as an
// attack when no other source had such mail. These come from other templates, other
// senders (finance, HR, IT, a school, a landlord, a supplier, a recruiter, a club)
// and, besides English, Spanish, German, French, Turkish, Hindi and Bengali. Each template is
// its own group, so a template never straddles the split.
func requestMails() []record {
	return templateMails(rand.New(rand.NewPCG(31, 2026)), requestTemplates, requestSlots, 8, "requests", "request")
}

var requestSlots = map[string][]string{
	"name":    {"Rosa", "Tariq", "Megan", "Sunil", "Hannah", "Kofi", "Ewa", "Diego", "Amelia", "Yusuf", "Lucia", "Arjun", "Fiona", "Mateo", "Nadia", "Oscar"},
	"sender":  {"Priscilla", "Martin", "Leila", "Tom", "Ravi", "Sophie", "Jonas", "Aiko", "Bruno", "Keisha", "Niall", "Zara"},
	"org":     {"Harbor Dental", "Greenleaf Property Management", "Maple Street Elementary", "Quantum Freight", "Sunrise Yoga Studio", "Brightline Consulting", "the Westside Running Club", "Alder & Finch Accountants", "Tidewater Insurance", "Copper Kettle Catering"},
	"day":     {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"},
	"date":    {"March 3", "April 14", "May 22", "June 9", "July 1", "August 18", "September 30", "October 7", "November 12", "December 2"},
	"time":    {"10:00", "2:30 PM", "9 AM", "4 PM", "11:15", "1 PM"},
	"amount":  {"$48.00", "$129.50", "€75", "£210.00", "$1,920.00", "€12.90", "$365.00"},
	"room":    {"the Birch room", "room 4.12", "the second-floor lounge", "the library", "Zoom", "Teams"},
	"item":    {"W-9 form", "signed lease renewal", "expense report", "purchase order", "consent form", "updated CV", "timesheet", "insurance card", "proof of address", "delivery schedule"},
	"project": {"the Q3 rollout", "the spring fair", "the warehouse move", "the audit", "the new website", "the board retreat", "the kitchen renovation"},
	"system":  {"Workday", "the HR portal", "BambooHR", "the expense tool", "Okta", "the VPN client", "Outlook", "the parent portal"},
	"count":   {"two", "three", "four", "five", "ten"},
}

var requestTemplates = []noticeTemplate{
	{"billing", "Subject: Action needed: payment details\n\nHi {name},\n\nOur records show the card on file for your {org} account has expired. Please update your billing details before {day} so that your next payment of {amount} goes through. You can do this under My Account > Payment methods.\n\nIf you've already updated them, please disregard this reminder.\n\nThanks,\n{sender}\nAccounts team"},
	{"billing", "Hello {name},\n\nA friendly reminder that invoice 2024-{count} for {amount} is now 14 days overdue. Could you let us know when we can expect payment, or send us the remittance advice if it has already gone out? Bank details are on the invoice.\n\nKind regards,\n{sender}, {org}"},
	{"billing", "Dear {name},\n\nWe are moving to a new bank on {date}. From then on, please pay all invoices into the account shown on the attached letter. Do not use the old details after that date. To confirm the change, call our office on the number you already have rather than any number in an email.\n\nBest regards,\n{sender}\nFinance, {org}"},
	{"billing", "Hi {name},\n\nBefore we can pay your invoice, we need a completed {item}. Could you fill it in and send it back to me by {day}? Payment runs go out every second {day}.\n\nMany thanks,\n{sender}"},
	{"meeting", "Hi {name},\n\nCould we find 30 minutes next week to go through {project}? I'm free {day} after {time} or any time on {date}. Please pick whichever suits you and send me an invite; {room} works for me.\n\nCheers,\n{sender}"},
	{"meeting", "Hello all,\n\nThe kickoff for {project} is on {date} at {time} in {room}. Please read the one-page brief beforehand and come with your questions. If you can't attend, reply to me and send someone from your team instead.\n\nThanks,\n{sender}"},
	{"meeting", "Hi {name},\n\nSomething came up and I need to move our {day} call. Would {date} at {time} work instead? If not, just propose a couple of slots and I'll make one of them work.\n\nApologies for the shuffle,\n{sender}"},
	{"meeting", "Team,\n\nPlease add your updates to the shared agenda by {day} noon so we can keep the meeting to half an hour. Ignore the old agenda template in the drive; the new one has a section for blockers.\n\n{sender}"},
	{"hr", "Hi {name},\n\nOpen enrollment for benefits closes on {date}. Please log in to {system}, review your health and dental choices and submit them, even if nothing changes. If you don't submit anything, last year's choices roll over.\n\nHR is happy to help, just reply to this email.\n\n{sender}\nPeople Operations, {org}"},
	{"hr", "Hello {name},\n\nOur records show you haven't completed this year's data protection training yet. Please complete it in {system} before {date}; it takes about 25 minutes. Follow the instructions on the first screen and keep the certificate for your files.\n\nThank you,\n{sender}, HR"},
	{"hr", "Dear {name},\n\nWelcome aboard! Before your first day on {date}, please send me a scan of your ID and your {item}, and complete the new starter form. On the day, come to reception at {time} and ask for me.\n\nLooking forward to working with you,\n{sender}"},
	{"hr", "Hi everyone,\n\nPlease submit your holiday requests for December through {system} by {date}. Requests sent by email can't be approved. Managers, please review your team's requests within a week.\n\nThanks,\n{sender}"},
	{"it", "Subject: Laptop update this {day}\n\nHi {name},\n\nIT will push an operating system update on {day} evening. Please save your work, leave your laptop plugged in and connected to the office network, and restart it when prompted. The update takes about 40 minutes.\n\nIT Service Desk, {org}"},
	{"it", "Hello {name},\n\nWe are enabling two-step sign-in for all staff. Please enrol your phone in {system} before {date}: open the link on the intranet, scan the code with the authenticator app and enter the six digits it shows. IT will never ask you for the code by email or phone.\n\nThanks,\n{sender}, IT"},
	{"it", "Hi {name},\n\nYour mailbox is at 95% of its quota. Please archive or delete old messages, especially ones with large attachments, so that incoming mail keeps arriving. Instructions for setting up auto-archive are in the IT knowledge base.\n\nIT Support"},
	{"it", "Hi team,\n\nThe old VPN client stops working on {date}. Please uninstall it and install the new one from the software centre; the previous setup instructions no longer apply. If the install fails, open a ticket and include a screenshot of the error.\n\n{sender}"},
	{"it", "Hi {name},\n\nThe new assistant in the help desk portal can answer common questions about printers, passwords and software requests. If it can't help, it will pass your question on to a person. Please try it before calling the desk this week while we're short-staffed.\n\nThanks,\n{sender}"},
	{"ai-tools", "Hi all,\n\nFrom {date}, everyone at {org} will have the AI assistant in Outlook and Word. It can summarize long threads, draft replies and answer questions about the document you have open. Please read the usage guidelines on the intranet before using it with client data, and never paste passwords into it. Drop-in training is on {day} at {time} in {room}.\n\n{sender}, IT"},
	{"ai-tools", "Hi {name},\n\nQuick tip: the chat assistant on the billing page can explain an invoice or change your plan, but it can't issue refunds. If it gives you a wrong answer, type \"agent\" to reach one of us. Please send refund requests to me directly.\n\nBest,\n{sender}"},
	{"password", "Hi {name},\n\nYour network password expires in five days. Please change it before {day}: press Ctrl+Alt+Del and choose \"Change a password\", or use {system} from home. The system will prompt you for the old password first. Never share your password, not even with IT.\n\nService Desk"},
	{"summary", "Hi {name},\n\nCould you write a short summary of {day}'s workshop and send it to everyone who attended? Bullet points are fine. Please leave out the budget figures, they aren't final yet, and copy me in.\n\nThanks,\n{sender}"},
	{"translate", "Hello {name},\n\nCould you translate the welcome letter into Spanish and French for the new families? The English version is attached; ignore the tracked changes in the second paragraph, they were rejected. No rush, {date} is fine.\n\n{sender}"},
	{"override", "Hi managers,\n\nThe approval workflow in {system} now lets you override the spending limit for urgent orders. Please use it only for genuine emergencies and add a note saying why; finance reviews every override at month end.\n\n{sender}, Finance"},
	{"disregard", "Hi {name},\n\nPlease disregard the calendar invitation I sent this morning, it had the wrong room. The corrected invite for {date} at {time} in {room} follows. Sorry for the noise!\n\n{sender}"},
	{"instructions", "Hi everyone,\n\nThe new desks arrive on {day}. Assembly instructions are taped under each desktop; please follow them in order and don't overtighten the screws. If a part is missing, don't improvise, tell me and I'll order it.\n\n{sender}, Facilities"},
	{"forward", "Hi {name},\n\nPlease forward this email to anyone on your team who missed {day}'s announcement, and ask them to reply to me with their T-shirt size for the charity run by {date}.\n\nThanks!\n{sender}"},
	{"reply", "Dear {name},\n\nTo confirm your place on the course, please reply to this email with your full name, date of birth and any dietary requirements. Places are given in the order replies arrive. Ignore this message if you have already confirmed.\n\nKind regards,\n{sender}\n{org}"},
	{"school", "Dear parents and guardians,\n\nThe class trip to the science museum is on {date}. Please sign the {item} and return it with {amount} by {day}. Children should bring a packed lunch and wear comfortable shoes.\n\nThank you,\n{sender}\n{org}"},
	{"school", "Hello {name},\n\nParent-teacher conferences are next week. Please book a ten-minute slot through {system} by {day}. If none of the times work, reply to this email and I'll arrange another time.\n\nBest wishes,\n{sender}"},
	{"school", "Dear families,\n\nPlease remind your child to bring their library books back by {day}. Overdue books hold up the next class. Thank you for your help!\n\n{sender}, school librarian"},
	{"landlord", "Dear {name},\n\nThe annual gas safety check for your flat is booked for {date} between 9 and 12. Please make sure someone is home to let the engineer in, or leave a key with the concierge and let us know.\n\nKind regards,\n{sender}\n{org}"},
	{"landlord", "Hi {name},\n\nYour lease ends on {date}. Please let us know by {day} whether you intend to renew. If you do, we'll send the {item} for signature; if not, we'll arrange the move-out inspection.\n\nThanks,\n{sender}, {org}"},
	{"landlord", "Dear residents,\n\nThe water will be shut off on {day} from {time} for about three hours while we replace a valve. Please fill a kettle beforehand and don't use the washing machine during the works. Sorry for the inconvenience.\n\nBuilding management"},
	{"supplier", "Hi {name},\n\nCould you send us a quote for {count} pallets of the usual order, delivered to the new warehouse by {date}? Please include delivery charges and confirm lead times. A purchase order will follow once we've approved the quote.\n\nBest,\n{sender}\nPurchasing, {org}"},
	{"supplier", "Hello {name},\n\nWe received the shipment this morning, but {count} boxes were damaged. Please arrange a replacement and tell us whether you need the damaged goods back. Photos are attached.\n\nRegards,\n{sender}"},
	{"recruiting", "Dear {name},\n\nThank you for applying for the operations coordinator role at {org}. We'd like to invite you to a first interview. Please reply with two or three times that suit you next {day}, and send us your {item} if anything has changed since you applied.\n\nKind regards,\n{sender}\nTalent team"},
	{"recruiting", "Hi {name},\n\nThanks for speaking with us yesterday. As a next step, please complete the short written exercise attached and send it back within five days. Follow the instructions at the top of the document; there's no need to spend more than two hours on it.\n\nBest,\n{sender}"},
	{"club", "Hi runners,\n\nThe club's annual meeting is on {date} at {time}. Please renew your membership ({amount}) before then if you'd like to vote, and reply if you want to stand for the committee.\n\nSee you on the track,\n{sender}\n{org}"},
	{"club", "Hello volunteers,\n\nWe still need {count} people for the food bank shift on {day} morning. If you can help, please sign up on the sheet by {day}. Wear closed shoes and bring a water bottle.\n\nThank you!\n{sender}"},
	{"health", "Dear {name},\n\nThis is a reminder of your appointment at {org} on {date} at {time}. Please arrive ten minutes early and bring your {item}. If you need to cancel, call us at least 24 hours in advance so we can offer the slot to someone else.\n\nBest regards,\nReception"},
	{"health", "Hi {name},\n\nYour prescription renewal is ready. Please collect it within seven days and bring photo ID. If someone else is collecting for you, they need to bring a signed note from you.\n\n{org} Pharmacy"},
	{"travel", "Hi {name},\n\nFor the conference trip on {date}, please send me your passport name exactly as printed and your frequent flyer number by {day}, and I'll book the flights. Hotel bookings go through the travel portal; please don't book them yourself.\n\nThanks,\n{sender}"},
	{"personal", "Hey {name},\n\nCould you water the plants while we're away from {date}? The key is with the neighbour. The big ferns need water twice a week, ignore the cactus. Text me if anything looks wrong.\n\nThanks a million,\n{sender}"},
	{"personal", "Hi {name},\n\nMum's birthday is on {date}. Can you book the restaurant for eight people at {time} and send everyone the address? I'll sort out the cake. Don't mention it to her!\n\n{sender}"},
	{"requests-es", "Hola {name}:\n\nTe escribo porque la tarjeta asociada a tu cuenta ha caducado. Por favor, actualiza tus datos de pago antes del {day} para que podamos cobrar la próxima cuota de {amount}. Si ya lo has hecho, ignora este mensaje.\n\nUn saludo,\n{sender}\n{org}"},
	{"requests-es", "Hola a todos:\n\nPor favor, enviadme vuestras horas del mes antes del {day} a mediodía. Si tenéis dudas sobre cómo rellenar la hoja, seguid las instrucciones de la primera pestaña o preguntadme.\n\nGracias,\n{sender}"},
	{"requests-de", "Hallo {name},\n\nkönnten Sie mir bitte bis {day} das unterschriebene Formular zurückschicken? Ohne die Unterschrift können wir die Rechnung über {amount} leider nicht freigeben.\n\nViele Grüße\n{sender}\n{org}"},
	{"requests-de", "Liebe Kolleginnen und Kollegen,\n\nbitte tragt eure Urlaubswünsche für Dezember bis zum {date} in {system} ein. Anträge per E-Mail können wir nicht bearbeiten. Die alte Anleitung im Intranet gilt nicht mehr, die neue hängt an.\n\nDanke und viele Grüße\n{sender}"},
	{"requests-fr", "Bonjour {name},\n\nPourriez-vous nous confirmer votre présence à la réunion du {date} à {time} ? Merci de nous envoyer également votre attestation d'assurance avant {day}.\n\nBien cordialement,\n{sender}\n{org}"},
	{"requests-fr", "Bonjour à tous,\n\nMerci de mettre à jour vos coordonnées bancaires dans {system} avant la fin du mois, sinon le remboursement de vos notes de frais sera retardé. Suivez les instructions de la page d'accueil.\n\n{sender}, service comptable"},
	{"requests-tr", "Merhaba {name},\n\nHesabınıza kayıtlı kartın süresi dolmuş görünüyor. Bir sonraki {amount} tutarındaki ödemenin sorunsuz alınabilmesi için lütfen {day} gününe kadar ödeme bilgilerinizi güncelleyin. Bilgilerinizi zaten güncellediyseniz bu e-postayı dikkate almayın.\n\nSaygılarımızla,\n{sender}\n{org}"},
	{"requests-tr", "Merhaba {name},\n\nŞirket ağındaki şifrenizin süresi beş gün içinde dolacak. Lütfen {day} gününden önce şifrenizi {system} üzerinden değiştirin. Sistem önce eski şifrenizi soracaktır. Şifrenizi kimseyle, BT ekibiyle bile paylaşmayın.\n\nBT Destek"},
	{"requests-tr", "Merhaba arkadaşlar,\n\nProje toplantısı {date} tarihinde saat {time} da {room} yapılacak. Lütfen toplantıdan önce ekteki raporu okuyun ve sorularınızı bana e-postayla gönderin. Katılamayacaksanız bana haber verin.\n\nTeşekkürler,\n{sender}"},
	{"requests-hi", "नमस्ते {name},\n\nआपके ऑफ़िस नेटवर्क पासवर्ड की अवधि पाँच दिनों में समाप्त हो जाएगी। कृपया {day} से पहले {system} में जाकर अपना पासवर्ड बदल लें। सिस्टम पहले आपका पुराना पासवर्ड पूछेगा। अपना पासवर्ड किसी के साथ साझा न करें, आईटी टीम के साथ भी नहीं।\n\nआईटी सहायता"},
	{"requests-bn", "প্রিয় {name},\n\nআপনার অফিস নেটওয়ার্কের পাসওয়ার্ডের মেয়াদ পাঁচ দিনের মধ্যে শেষ হবে। অনুগ্রহ করে {day}-এর আগে {system}-এ গিয়ে আপনার পাসওয়ার্ড পরিবর্তন করুন। সিস্টেম প্রথমে আপনার পুরোনো পাসওয়ার্ড জানতে চাইবে। আপনার পাসওয়ার্ড কারও সাথে শেয়ার করবেন না, এমনকি আইটি বিভাগের সাথেও না।\n\nআইটি সহায়তা"},
	{"requests-hi", "नमस्ते {name} जी,\n\nआपके खाते से जुड़ा कार्ड समाप्त हो गया है। कृपया {day} से पहले अपनी भुगतान जानकारी अपडेट करें, ताकि अगली किस्त {amount} समय पर जमा हो सके। अगर आप पहले ही अपडेट कर चुके हैं, तो इस संदेश को अनदेखा करें।\n\nधन्यवाद,\n{sender}\n{org}"},
	{"requests-hi", "प्रिय {name},\n\nअगले सप्ताह की बैठक {date} को {time} बजे होगी। कृपया बैठक से पहले रिपोर्ट पढ़ लें और अपने सुझाव मुझे ईमेल से भेजें। अगर आप नहीं आ सकते, तो मुझे बता दें।\n\nसादर,\n{sender}"},
	{"requests-hi", "नमस्ते,\n\nकृपया इस महीने की उपस्थिति शीट {day} तक जमा करें। फ़ॉर्म भरने के निर्देश पहले पन्ने पर दिए गए हैं। कोई समस्या हो तो एचआर विभाग से संपर्क करें।\n\nधन्यवाद,\n{sender}"},
	{"requests-bn", "প্রিয় {name},\n\nআপনার অ্যাকাউন্টের কার্ডের মেয়াদ শেষ হয়ে গেছে। অনুগ্রহ করে {day}-এর আগে আপনার পেমেন্টের তথ্য হালনাগাদ করুন, যাতে পরবর্তী কিস্তি {amount} সময়মতো জমা হয়। আপনি যদি ইতিমধ্যে তথ্য হালনাগাদ করে থাকেন, তাহলে এই বার্তাটি উপেক্ষা করুন।\n\nধন্যবাদ,\n{sender}\n{org}"},
	{"requests-bn", "নমস্কার {name},\n\nআগামী সভা {date} তারিখে {time}-এ হবে। অনুগ্রহ করে সভার আগে প্রতিবেদনটি পড়ে নিন এবং আপনার মতামত আমাকে ইমেইলে পাঠান। আপনি আসতে না পারলে আমাকে জানাবেন।\n\nশুভেচ্ছান্তে,\n{sender}"},
	{"requests-bn", "সবাইকে শুভেচ্ছা,\n\nঅনুগ্রহ করে এই মাসের হাজিরা খাতা {day}-এর মধ্যে জমা দিন। ফর্ম পূরণের নির্দেশনা প্রথম পাতায় দেওয়া আছে। কোনো সমস্যা হলে মানবসম্পদ বিভাগে যোগাযোগ করুন।\n\nধন্যবাদ,\n{sender}"},
}
