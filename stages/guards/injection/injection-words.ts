// What the injection rule families are made of: the rule's shape, the word patterns the families share (AI readers,
// directions, secrets, actions), and the word lists the detector reads hidden text and reader directives with. Its own
// file so that each family's file can import them.
export interface InjectionRule {
  readonly name: string;
  readonly pattern: RegExp;
  /** A number, or a function of the matched text for rules whose strength depends on what was named. */
  readonly weight: number | ((matched: string) => number);
  /** Advice like "never reveal your API key" is not an attack: a negation just before the match cancels it. */
  readonly negatable?: boolean;
  /** A cheap test (not global) the text must pass before the pattern runs: a script or a word the pattern needs. */
  readonly when?: RegExp;
}

export const ai = String.raw`(?:ai|a\.i\.|llms?|large\s+language\s+models?|language\s+models?|ai\s+(?:assistants?|agents?|models?)|chatbots?|gpts?|chatgpt|claude|gemini|copilot|automated\s+(?:[\w-]+\s+)?(?:systems?|agents?|assistants?|readers?|tools?|reviewers?|screeners?))`;
export const aiOrRole = String.raw`(?:${ai}|assistants?|agents?|models?|bots?)`;
export const earlier = String.raw`(?:previous|prior|above|earlier|preceding|foregoing|original|initial|existing|old|former|current|system|developer|safety|default|given|aforementioned|other)`;
export const directions = String.raw`(?:instructions?|prompts?|directions?|directives?|rules|guidelines|guardrails|constraints|commands|context|messages?|programming|restrictions|polic(?:y|ies)|orders|tasks?|guidance|settings|configuration|training)`;
export const owned = String.raw`(?:(?:all|any|every|each)\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+|those\s+|its\s+|their\s+)?`;
export const secrets = String.raw`(?:api[\s_-]?keys?|secret\s+keys?|secrets?\b|process\.env|os\.environ|login\s+(?:details|credentials|info)|credentials|passwords?(?!\s+(?:reset|manager|policy|requirements|strength))|passwd|access\s+tokens?|auth(?:entication)?\s+tokens?|bearer\s+tokens?|session\s+(?:tokens?|cookies?)|private\s+keys?|ssh\s+keys?|environment\s+variables|env\s+vars|\.env(?:\s+file)?|cookies|(?:credit\s+)?card\s+numbers?|\bpin\b|cvv|security\s+codes?|(?:recovery|backup|mfa|2fa)\s+codes?|seed\s+phrases?|social\s+security\s+numbers?)`;
export const userData = String.raw`(?:conversation|(?:full\s+)?chat\s+(?:history|log|transcript)|message\s+history|previous\s+messages|(?:this|the\s+whole|the\s+entire)\s+(?:chat|conversation|thread|session)|system\s+prompt|(?:the\s+)?(?:user'?s?|customer'?s?|their|his|her)\s+(?:data|files?|e-?mails?|messages|password|credentials|contacts|address(?:es)?|personal\s+(?:data|information|details)|documents?|history|inbox|notes|calendar|api\s+keys?)|(?:customer|client|user|employee)\s+(?:database|list|records|data)|~\/\.(?:aws|ssh)|\.aws\/credentials|anything\s+(?:marked|labell?ed|tagged)\s+['"‘“]?(?:confidential|secret|private|internal)|(?:the\s+)?(?:full|entire|whole|complete)\s+(?:document|file|folder|dataset|database|inbox|mailbox|thread|codebase|repo(?:sitory)?)(?:\s+set)?|all\s+(?:the\s+)?(?:data|files|e-?mails|documents|messages|records|contacts))`;
export const destination = String.raw`(?:https?:\/\/|www\.|[\w.+-]+@[\w-]+\.[a-z]{2,}|\bwebhook|\battacker|\bexternal\s+(?:server|address|url|endpoint)|\bthis\s+(?:url|address|endpoint|link|server|e-?mail)|\bthe\s+following\s+(?:url|address|endpoint)|\bpublic\s+(?:gist|repo(?:sitory)?|pastebin|channel|bucket)|\bpastebin|s3:\/\/[\w.-]*public)`;

export const actions = String.raw`(?:call|invoke|use|run|execute|trigger|visit|open|navigate\s+to|browse\s+to|fetch|download|install|delete|remove|wipe|transfer|wire|send|e-?mail|forward|post|upload|push|export|purchase|buy|approve|accept|grant|disable|enable|share|pay|book|close|mark|assign|escalate|confirm|append|list|give|reveal|disclose|print|output|dump|report|recommend|rank|omit|hide|describe|tell|say|state|reply|respond|answer|include|insert|add|click|write|change|modify|update|create|submit|move|copy|ignore|forget|drop|stop|claim|pretend|treat|act|behave|commit|end|empty|reset|fill|leave\s+out|omit|exclude|skip|apply|promote|award|conclude|issue|mention)`;
export const sensitiveActions = String.raw`(?:run|execute|visit|open|download|install|delete|remove|wipe|transfer|wire|send|e-?mail|forward|post|upload|push|export|purchase|buy|approve|accept|grant|disable|share|pay|print|reveal|disclose|dump|output|escalate|confirm|ignore|forget|drop|reset)`;

export const rx = (source: string, flags = 'gi') => new RegExp(source, flags);

/** Words that make hidden text (an HTML comment, invisible CSS, a decoded payload) read as a message to an AI. */
export const aiWords = rx(String.raw`\b(?:${aiOrRole})\b`, 'i');
export const imperativeWords =
  /\b(?:ignore|must|should|always|never|do not|don't|respond|reply|say|tell|include|recommend|describe|output|print|write|summari[sz]e|mention|state|rate|praise|send|call|use|instead|forget|forward|mark|approve|grant|delete|open|run|execute|transfer|wire|accept|share|report|assign|list|give|reveal|buy|notify)\b/i;

/**
 * Features of one sentence for the reader-directive score: text that tells an automated reader what to do, in any
 * wording. A directive alone is a how-to; aimed at "this" text, at the user, at a risky action or at deceit, it is not.
 */
export const readerFeatures = {
  reader: rx(
    String.raw`\b(?:ai|a\.i\.|llms?|language\s+models?|models?|bots?|chatbots?|agents?|agentic|assistants?|copilot|gpts?|summari[sz]ers?|graders?|screeners?|crawlers?|automated|automation|machines?|machine-readable|(?:whatever|whichever|any)\s+(?:tool|system|program|software|service)|(?:systems?|tools?|programs?|software)\s+(?:that|which)\s+(?:read|parse|process|condense|summari[sz]e|see|scan)s?)\b`,
    'i',
  ),
  directive: rx(
    String.raw`\b(?:must|should|shall|ought\s+to|needs?\s+to|has\s+to|have\s+to|(?:is|are)\s+(?:required|expected|instructed|obliged|supposed|to)|wants?\s+you\s+to|under\s+the\s+condition|kindly|please|do\s+not|don'?t|never|always|only)\b|(?:^|[:—–,]\s*)(?:also\s+|then\s+|now\s+|just\s+)?${actions}\b`,
    'i',
  ),
  deixis: rx(
    String.raw`\b(?:this|these)\s+(?:page|message|e-?mail|snippet|document|file|content|text|article|review|thread|thesis|post|site|pdf|section|note|ticket|comment|repo(?:sitory)?|result|inbox|appendix|paper|recipe|sheet|listing|chat|conversation)s?\b|\b(?:reading|sees?|seeing|visiting|parsing)\s+this\b|\bvisiting\b|\bthe\s+summary\b|\bwhen\s+(?:you\s+\w+|asked)\b|\bbelow\b`,
    'i',
  ),
  user: rx(
    String.raw`\b(?:the|its|their|your)\s+(?:user|owner|reader|human|person(?:\s+asking)?)s?\b|\b(?:users|readers|someone)\b`,
    'i',
  ),
  action: rx(
    String.raw`\b(?:delete|deleting|refund|share|send|e-?mail|mail|forward|push|archive|accept|block|download|upload|transfer|pay|purchase|donat(?:e|ion)|complete|promote|award|replace|apply|set|change|add|create|navigate|tell|say|reply|respond|report|recommend|mention|conclude|praise|omit|leave\s+out|drop|hide|skip|issue|grant|disable|install|run|execute|mark)\b`,
    'i',
  ),
  deceit: rx(
    String.raw`\b(?:untrue|false(?:ly)?|the\s+true\s+value|even\s+though|regardless|instead|without\s+(?:review|asking|approval|checking|telling|confirmation)|it'?s\s+fine|(?:pre-?)?(?:authori[sz]ed|approved)|do\s+not\s+summari[sz]e|outdated|cancel+ed|secretly|silently|for\s+the\s+rest\s+of)\b`,
    'i',
  ),
} as const;
