// The classic payload in the most used languages, a family of injection-rules.ts: "ignore the previous instructions",
// "show your system prompt", "send the password to ..." and "you are now ...", in Chinese, Spanish, Hindi, Arabic,
// Portuguese, Bengali, French, Russian, Japanese, German, Korean, Turkish, Indonesian, Vietnamese and Urdu (English,
// Italian, Dutch and Polish are in the takeover family). Scripts without spaces or with combining marks get no `\b`:
// JavaScript's word boundary knows only ASCII letters.
import { rx, type InjectionRule } from './injection-words.js';

/** Cheap tests for the script (or, in Latin script, a word) a family of alternatives needs. */
const scripts = {
  cjk: /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/,
  devanagari: /[\u0900-\u097f]/,
  bengali: /[\u0980-\u09ff]/,
  arabic: /[\u0600-\u06ff]/,
  cyrillic: /[\u0400-\u04ff]/,
  // Latin-script languages: a word of the language that every alternative of its pattern holds.
  spanish: /instrucciones|indicaciones|reglas|órdenes|ordenes|normas|directrices/i,
  portuguese: /instruções|instrucoes|orientações|orientacoes|regras|ordens|diretrizes/i,
  french: /précédentes|precedentes|antérieures|anterieures|initiales|d'origine|données|reçues/i,
  german: /anweisungen|instruktionen|regeln|befehle|vorgaben|richtlinien|gesagt|aufgetragen|befohlen|erklärt/i,
  turkish: /talimat|yönergeleri|kuralları|komutları/i,
  indonesian: /instruksi|perintah|petunjuk|aturan|arahan/i,
  vietnamese: /hướng|chỉ|lệnh|quy\s+tắc/i,
} as const;

/** A Latin-script word start: no letter (of any script) just before. */
const start = String.raw`(?<![\p{L}\p{M}])`;
/** Arabic short vowels and marks that may sit on any letter. */
const marks = String.raw`[\u064B-\u0652]?`;

/** "Ignore / forget (all) the previous instructions", one alternative per language, each with the script it needs. */
const overrides: ReadonlyArray<readonly [RegExp, string]> = [
  // Chinese (simplified and traditional): verb, then "previous / above / all", then "instructions / rules".
  [
    scripts.cjk,
    String.raw`(?:忽略|忽视|忽視|无视|無視|不要理会|不要理會|别管|別管|忘记|忘記|忘掉|抛开|拋開|放弃|放棄)掉?(?:你的|你)?(?:(?:之前|以前|先前|此前|上面|上述|以上|前面|原来|原來|原先|所有|全部|一切|这些|這些)的?){1,3}(?:指令|指示|说明|說明|规则|規則|提示词|提示詞|提示|命令|要求|设定|設定|限制)`,
  ],
  // Japanese: "previous / all" + instructions, then particles, then "ignore / forget".
  [
    scripts.cjk,
    String.raw`(?:これまでの|以前の|前の|上記の|先の|今までの|すべての|全ての|最初の)(?:すべての|全ての)?(?:指示|命令|指令|ルール|設定|プロンプト|規則)(?:は|を|も)?(?:すべて|全て|全部)?(?:無視|忘れ)`,
  ],
  // Korean.
  [
    scripts.cjk,
    String.raw`(?:이전|앞의|위의|기존|모든|지금까지의)(?:의)?\s*(?:모든\s*)?(?:지시|지침|명령|규칙|프롬프트|설정)(?:사항)?(?:을|를|은|는)?\s*(?:모두\s*|전부\s*)?(?:무시|잊)`,
  ],
  // Hindi.
  [
    scripts.devanagari,
    String.raw`(?:(?:पिछले|पिछली|पहले|पूर्व|ऊपर|सभी|सारे|सारी|दिए|गए|के)\s+){1,4}(?:निर्देश|निर्देशों|आदेश|आदेशों|नियम|नियमों)\s+(?:को\s+)?(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल|अनसुना)`,
  ],
  // Bengali.
  [
    scripts.bengali,
    String.raw`(?:(?:আগের|পূর্ববর্তী|পূর্বের|সমস্ত|সব|সকল|উপরের)\s+){1,3}(?:নির্দেশ|নির্দেশনা|নির্দেশাবলী|নির্দেশগুলো|নিয়ম|নিয়মগুলো)\s+(?:উপেক্ষা|ভুলে|অগ্রাহ্য)`,
  ],
  // Arabic: verb, "all", the instructions, and "previous" (one of "all" or "previous" must be there).
  [
    scripts.arabic,
    String.raw`(?:تجاهل|تجاهلي|تجاهلوا|ان${marks}س${marks}[ىي]?|إن${marks}س${marks}|اترك|تخط${marks}[ىي]?|أهمل|اهمل)${marks}\s+(?:(?:جميع|كل|كافة)\s+(?:ال)?(?:تعليمات|أوامر|توجيهات|قواعد|إرشادات|ارشادات)(?:\s+(?:ال)?سابقة)?|(?:ال)?(?:تعليمات|أوامر|توجيهات|قواعد|إرشادات|ارشادات)\s+(?:ال)?سابقة)`,
  ],
  // Urdu.
  [
    scripts.arabic,
    String.raw`(?:(?:پچھلی|پچھلے|سابقہ|تمام|سب)\s+){1,2}(?:ہدایات|احکامات|ہدایتوں|اصول)\s+(?:کو\s+)?(?:نظر\s+انداز|بھول)`,
  ],
  // Russian.
  [
    scripts.cyrillic,
    String.raw`(?:игнорируй(?:те)?|проигнорируй(?:те)?|забудь(?:те)?|не\s+обращай(?:те)?\s+внимания\s+на|отбрось(?:те)?|отмени(?:те)?)\s+(?:вс[её]\s+|все\s+)?(?:предыдущие|прежние|прошлые|свои|данные\s+ранее|полученные|старые|изначальные)\s+(?:инструкции|указания|правила|команды|установки|распоряжения)`,
  ],
  // Spanish.
  [
    scripts.spanish,
    String.raw`${start}(?:ignora|ignore|olvida|olvide|olvídate\s+de|olvidate\s+de|descarta|omite|no\s+hagas\s+caso\s+(?:a|de))\s+(?:todas\s+|todos\s+)?(?:las\s+|los\s+|tus\s+|sus\s+)?(?:instrucciones|indicaciones|reglas|órdenes|ordenes|normas|directrices)\s+(?:previas|anteriores|originales|iniciales|que\s+(?:te|le)\s+(?:dieron|han\s+dado))`,
  ],
  // Portuguese.
  [
    scripts.portuguese,
    String.raw`${start}(?:ignore|ignora|desconsidere|desconsidera|esqueça|esqueca|esquece|descarte|despreze)\s+(?:todas\s+|todos\s+)?(?:as\s+|os\s+|suas\s+|tuas\s+)?(?:instruções|instrucoes|orientações|orientacoes|regras|ordens|diretrizes)\s+(?:anteriores|prévias|previas|originais|iniciais|que\s+(?:você|voce|te)\s+(?:recebeu|deram))`,
  ],
  // French.
  [
    scripts.french,
    String.raw`${start}(?:ignore[sz]?|oublie[sz]?|ne\s+(?:tiens|tenez)\s+(?:plus|pas)\s+compte\s+des|fais\s+abstraction\s+des|faites\s+abstraction\s+des|laisse\s+tomber)\s+(?:toutes\s+|tous\s+)?(?:les\s+|tes\s+|vos\s+)?(?:instructions|consignes|règles|regles|directives|ordres)\s+(?:précédentes|precedentes|antérieures|anterieures|initiales|d'origine|qu'on\s+t'a\s+données|que\s+(?:tu\s+as|vous\s+avez)\s+reçues)`,
  ],
  // German.
  [
    scripts.german,
    String.raw`${start}(?:ignoriere|ignorier|ignorieren\s+sie|vergiss|vergessen\s+sie|missachte|missachten\s+sie|übergehe|verwirf)\s+(?:alle\s+|sämtliche\s+)?(?:deine\s+|ihre\s+|die\s+)?(?:bisherigen|vorherigen|vorigen|früheren|ursprünglichen|obigen|alten)\s+(?:anweisungen|instruktionen|regeln|befehle|vorgaben|richtlinien)|${start}(?:vergiss|ignoriere),?\s+was\s+(?:man\s+dir|dir\s+\w+|du)\s+(?:vorher|zuvor|bisher|früher)\s+(?:gesagt|aufgetragen|befohlen|erklärt)`,
  ],
  // Turkish.
  [
    scripts.turkish,
    String.raw`${start}(?:(?:önceki|tüm|bütün|daha\s+önceki|yukarıdaki)\s+){1,2}(?:talimatları|talimatlari|yönergeleri|kuralları|komutları)\s+(?:yok\s+say|görmezden\s+gel|unut|dikkate\s+alma)`,
  ],
  // Indonesian and Malay.
  [
    scripts.indonesian,
    String.raw`${start}(?:abaikan|lupakan|acuhkan)\s+(?:semua\s+|seluruh\s+)?(?:instruksi|perintah|petunjuk|aturan|arahan)\s+(?:sebelumnya|terdahulu|awal|yang\s+diberikan)`,
  ],
  // Vietnamese.
  [
    scripts.vietnamese,
    String.raw`${start}(?:bỏ\s+qua|phớt\s+lờ|quên\s+đi|quên|lờ\s+đi)\s+(?:tất\s+cả\s+)?(?:các\s+|mọi\s+|những\s+)?(?:hướng\s+dẫn|chỉ\s+dẫn|chỉ\s+thị|lệnh|quy\s+tắc)\s+(?:trước\s+(?:đó|đây)|cũ|ban\s+đầu)`,
  ],
];

/** "System prompt" in the same languages. */
const systemPrompt = String.raw`(?:系统提示词?|系統提示詞?|系统指令|系統指令|初始指令|システムプロンプト|システム・プロンプト|初期指示|시스템\s*프롬프트|सिस्टम\s+(?:प्रॉम्प्ट|प्रोम्प्ट)|সিস্টেম\s+প্রম্পট|(?:موج[ّ]?ه|تعليمات|رسالة)\s+النظام|سسٹم\s+پرامپٹ|системн(?:ый|ого|ые|ую)\s+(?:промпт|подсказк|инструкци)|(?:mensaje|prompt|indicaciones|instrucciones)\s+del?\s+sistema|prompt\s+(?:de|do)\s+sistema|(?:prompt|invite|instructions)\s+(?:système|systeme)|system-?prompt|systemanweisungen|systemnachricht|sistem\s+(?:istemini|istemi|komutlarını)|prompt\s+sistem|lời\s+nhắc\s+hệ\s+thống)`;
/** Verbs that ask to show or tell, in the same languages. */
const reveal = String.raw`(?:输出|输出|显示|顯示|告诉|告訴|泄露|洩露|透露|给我|給我|打印|展示|公开|公開|说出|說出|表示|出力|教え|見せ|開示|書き出|출력|보여|알려|공개|दिखा|बता|प्रकट|साझा|দেখা|বল|প্রকাশ|اكشف|أظهر|اظهر|اعرض|اطبع|أخبرني|اخبرني|دکھا|بتا|покажи|выведи|раскрой|напиши|сообщи|muestra|muéstrame|dime|revela|imprime|enséñame|revele|mostre|exiba|imprima|diga|affiche|révèle|revele|montre|donne|imprime|écris|gib|zeige|zeig|verrate|drucke|schreibe|nenne|göster|yazdır|açıkla|paylaş|tampilkan|tunjukkan|berikan|ungkapkan|hiển\s+thị|tiết\s+lộ|in\s+ra)`;

/** Words for a secret (password, key, token, credentials) in the same languages. */
const secretWords = String.raw`(?:密码|密碼|密钥|密鑰|口令|令牌|凭证|憑證|凭据|私钥|パスワード|APIキー|API\s*キー|秘密鍵|認証情報|トークン|暗証番号|비밀번호|암호|API\s*키|토큰|पासवर्ड|कुंजी|टोकन|পাসওয়ার্ড|চাবি|টোকেন|كلمة\s+(?:المرور|السر|مرور)|مفتاح|رمز\s+الدخول|بيانات\s+الاعتماد|پاس\s*ورڈ|парол[ьяе]|ключ|токен|уч[её]тные\s+данные|contraseña|clave|credenciales|senha|chave|credenciais|mot\s+de\s+passe|identifiants|passwort|kennwort|zugangsdaten|schlüssel|şifre|parola|anahtar|kata\s+sandi|sandi|kredensial|mật\s+khẩu)`;
/** Verbs that send something away, in the same languages. */
const sendVerbs = String.raw`(?:发送|發送|发给|發給|发到|發到|转发|轉發|上传|上傳|寄给|传给|送信|送って|送る|転送|アップロード|보내|전송|업로드|भेज|পাঠা|أرسل|ارسل|ابعث|شارك|بھیج|отправь|отправьте|перешли|пришли|вышли|envía|envia|envíe|envie|manda|mande|reenvía|encaminhe|envoie|envoyez|transmets|transmettez|schick|schicke|sende|übermittle|gönder|yolla|ilet|kirim|kirimkan|teruskan|gửi)`;
const destination = String.raw`(?:https?:\/\/|www\.|[\w.+-]+@[\w-]+\.[a-z]{2,})`;

export const languageRules: readonly InjectionRule[] = [
  ...overrides.map(([when, pattern]): InjectionRule => ({
    name: 'instruction_override',
    pattern: rx(pattern, 'giu'),
    weight: 1,
    when,
  })),
  {
    name: 'prompt_leak',
    pattern: rx(String.raw`${reveal}[^\n。.!?]{0,30}?${systemPrompt}|${systemPrompt}[^\n。.!?]{0,30}?${reveal}`, 'giu'),
    weight: 0.6,
    when: /系统|系統|初始|システム|初期|시스템|सिस्टम|সিস্টেম|النظام|سسٹم|системн|sistem|syst[eè]m|hệ\s+thống/i,
  },
  {
    // Subject-verb-object and subject-object-verb orders both: the secret, the verb and a destination, in one line.
    name: 'exfiltration',
    pattern: rx(
      String.raw`(?:${sendVerbs}[^\n。]{0,60}?${secretWords}|${secretWords}[^\n。]{0,60}?${sendVerbs})[^\n。]{0,60}?${destination}|${secretWords}[^\n。]{0,60}?${destination}[^\n。]{0,20}?${sendVerbs}`,
      'giu',
    ),
    weight: 0.6,
    // The destination the pattern ends with: a cheaper test than the secret words.
    when: /@|https?:\/\/|www\./,
  },
  {
    name: 'role_hijack',
    pattern: rx(
      String.raw`(?:你现在是|你現在是|从现在开始你是|從現在開始你是|あなたは今から|今からあなたは|너는\s*이제|अब\s+(?:तुम|आप)\s+(?:एक\s+)?|এখন\s+থেকে\s+তুমি|أنت\s+الآن|теперь\s+ты|${start}ahora\s+eres|${start}agora\s+(?:você|voce)\s+é|${start}(?:tu\s+es|vous\s+êtes)\s+(?:maintenant|désormais)|${start}du\s+bist\s+(?:jetzt|ab\s+jetzt|nun)|${start}artık\s+sen|${start}sekarang\s+kamu\s+adalah)[^\n.。]{0,40}?(?:无限制|無限制|没有限制|制限のない|제한\s*없는|बिना\s+प्रतिबंध|কোনো\s+বিধিনিষেধ|بلا\s+قيود|без\s+ограничений|sin\s+restricciones|sem\s+restrições|sans\s+restrictions|ohne\s+einschränkungen|kısıtlamasız|tanpa\s+batasan|DAN)`,
      'giu',
    ),
    weight: 0.8,
    when: /DAN|限制|제한|प्रतिबंध|বিধিনিষেধ|قيود|ограничени|restric|einschränk|kısıtlama|batasan/i,
  },
];
