// The default injection detector's rules, one per category of attack. A weight is what one match adds to the score.
export interface InjectionRule {
  readonly name: string;
  readonly pattern: RegExp;
  /** A number, or a function of the matched text for rules whose strength depends on what was named. */
  readonly weight: number | ((matched: string) => number);
  /** Advice like "never reveal your API key" is not an attack: a negation just before the match cancels it. */
  readonly negatable?: boolean;
}

const ai = String.raw`(?:ai|a\.i\.|llms?|large\s+language\s+models?|language\s+models?|ai\s+(?:assistants?|agents?|models?)|chatbots?|gpts?|chatgpt|claude|gemini|copilot|automated\s+(?:[\w-]+\s+)?(?:systems?|agents?|assistants?|readers?|tools?|reviewers?|screeners?))`;
const aiOrRole = String.raw`(?:${ai}|assistants?|agents?|models?|bots?)`;
const earlier = String.raw`(?:previous|prior|above|earlier|preceding|foregoing|original|initial|existing|old|former|current|system|developer|safety|default|given|aforementioned|other)`;
const directions = String.raw`(?:instructions?|prompts?|directions?|directives?|rules|guidelines|guardrails|constraints|commands|context|messages?|programming|restrictions|polic(?:y|ies)|orders|tasks?|guidance|settings|configuration|training)`;
const owned = String.raw`(?:(?:all|any|every|each)\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+|those\s+|its\s+|their\s+)?`;
const secrets = String.raw`(?:api[\s_-]?keys?|secret\s+keys?|secrets?\b|process\.env|os\.environ|login\s+(?:details|credentials|info)|credentials|passwords?(?!\s+(?:reset|manager|policy|requirements|strength))|passwd|access\s+tokens?|auth(?:entication)?\s+tokens?|bearer\s+tokens?|session\s+(?:tokens?|cookies?)|private\s+keys?|ssh\s+keys?|environment\s+variables|env\s+vars|\.env(?:\s+file)?|cookies|(?:credit\s+)?card\s+numbers?|\bpin\b|cvv|security\s+codes?|(?:recovery|backup|mfa|2fa)\s+codes?|seed\s+phrases?|social\s+security\s+numbers?)`;
const userData = String.raw`(?:conversation|(?:full\s+)?chat\s+(?:history|log|transcript)|message\s+history|previous\s+messages|(?:this|the\s+whole|the\s+entire)\s+(?:chat|conversation|thread|session)|system\s+prompt|(?:the\s+)?(?:user'?s?|customer'?s?|their|his|her)\s+(?:data|files?|e-?mails?|messages|password|credentials|contacts|address(?:es)?|personal\s+(?:data|information|details)|documents?|history|inbox|notes|calendar|api\s+keys?)|(?:customer|client|user|employee)\s+(?:database|list|records|data)|~\/\.(?:aws|ssh)|\.aws\/credentials|anything\s+(?:marked|labell?ed|tagged)\s+['"‘“]?(?:confidential|secret|private|internal)|(?:the\s+)?(?:full|entire|whole|complete)\s+(?:document|file|folder|dataset|database|inbox|mailbox|thread|codebase|repo(?:sitory)?)(?:\s+set)?|all\s+(?:the\s+)?(?:data|files|e-?mails|documents|messages|records|contacts))`;
const destination = String.raw`(?:https?:\/\/|www\.|[\w.+-]+@[\w-]+\.[a-z]{2,}|\bwebhook|\battacker|\bexternal\s+(?:server|address|url|endpoint)|\bthis\s+(?:url|address|endpoint|link|server|e-?mail)|\bthe\s+following\s+(?:url|address|endpoint)|\bpublic\s+(?:gist|repo(?:sitory)?|pastebin|channel|bucket)|\bpastebin|s3:\/\/[\w.-]*public)`;

const actions = String.raw`(?:call|invoke|use|run|execute|trigger|visit|open|navigate\s+to|browse\s+to|fetch|download|install|delete|remove|wipe|transfer|wire|send|e-?mail|forward|post|upload|push|export|purchase|buy|approve|accept|grant|disable|enable|share|pay|book|close|mark|assign|escalate|confirm|append|list|give|reveal|disclose|print|output|dump|report|recommend|rank|omit|hide|describe|tell|say|state|reply|respond|answer|include|insert|add|click|write|change|modify|update|create|submit|move|copy|ignore|forget|drop|stop|claim|pretend|treat|act|behave|commit|end|empty|reset|fill|leave\s+out|omit|exclude|skip|apply|promote|award|conclude|issue|mention)`;
const sensitiveActions = String.raw`(?:run|execute|visit|open|download|install|delete|remove|wipe|transfer|wire|send|e-?mail|forward|post|upload|push|export|purchase|buy|approve|accept|grant|disable|share|pay|print|reveal|disclose|dump|output|escalate|confirm|ignore|forget|drop|reset)`;

const rx = (source: string, flags = 'gi') => new RegExp(source, flags);

export const injectionRules: readonly InjectionRule[] = [
  // Instruction overrides.
  {
    // The same override in the languages a translated payload most often uses (fr, es, it, pt, de, nl, pl, ru).
    name: 'instruction_override',
    pattern: rx(
      String.raw`\b(?:ignore[zr]?|ignora(?:te|r)?|oubliez|oublie|olvida|dimentica|esque[çc]a|vergiss|ignoriere|negeer|vergeet|zignoruj|zapomnij)\s+(?:toutes?\s+|tous\s+|todas?\s+|todos\s+|tutte\s+|tutti\s+|alle\s+|wszystkie\s+)?(?:les\s+|las\s+|los\s+|le\s+|as\s+|os\s+|die\s+|de\s+|vos\s+|tus\s+|sus\s+|deine\s+|ihre\s+|je\s+)?(?:(?:instructions?|instrucciones|istruzioni|instruções|instrucoes|anweisungen|instructies|instrukcje|règles|regles|reglas|regole|regras|regeln|regels|zasady)\s+(?:précédentes|precedentes|anteriores|precedenti|vorherigen|bisherigen|vorigen|eerdere|poprzednie|antérieures)|(?:précédentes|anteriores|precedenti|vorherigen|bisherigen|vorige|eerdere|poprzednie)\s+(?:instructions?|instrucciones|istruzioni|instruções|anweisungen|instructies|instrukcje|regeln|regels)|vos\s+règles|tus\s+reglas|le\s+tue\s+regole|deine\s+regeln)|(?:игнорируй|игнорируйте|забудь|забудьте)\s+(?:все\s+)?(?:предыдущие|прежние|свои)\s+(?:инструкции|указания|правила)`,
      'giu',
    ),
    weight: 1,
  },
  {
    name: 'instruction_override',
    pattern: rx(
      String.raw`\b(?:ignores?|disregards?|set\s+aside|forgets?|bypass(?:es)?)\s+(?:all\s+)?(?:your|its|his|their|the)\s+(?:own\s+)?(?:guidelines|safety\s+rules|creators?'?\s+instructions|makers?'?\s+instructions|training|filters)\b|\bignores?\s+all\s+safety\s+rules\b`,
    ),
    weight: 0.6,
  },
  {
    name: 'instruction_override',
    pattern: rx(
      String.raw`\b(?:ignore|disregard|forget|skip|override|bypass|discard|abandon|neglect|set\s+aside|pay\s+no\s+attention\s+to|do\s+not\s+follow|don'?t\s+follow|stop\s+following|no\s+longer\s+follow)\s+${owned}(?:${earlier}\s+)+(?:[a-z]+\s+)?${directions}\b`,
    ),
    weight: 1,
    negatable: true,
  },
  {
    name: 'instruction_override',
    pattern: rx(
      String.raw`\b(?:ignore|disregard|forget|override|bypass|discard)\s+(?:all\s+)?(?:of\s+)?your\s+(?:${directions}|system\s+prompt)\b|\b(?:ignore|disregard|forget)\s+(?:everything|all(?:\s+of\s+it)?|anything)\s+(?:above|before|previously|prior|(?:you\s+(?:were|have\s+been)\s+(?:told|given))|that\s+came\s+before|up\s+to\s+(?:this|now)|so\s+far)|\b(?:ignore|disregard|forget)\s+(?:whatever|what|anything|everything|all)\s+(?:the\s+|your\s+)?(?:developer|operator|system|user|creator|owner|admin|they|you\s+(?:were|have\s+been))\s+(?:told|said|gave|instructed|wrote|asked|configured|set|specified)|\b(?:your|the\s+(?:assistant|ai|model|agent)'?s?)\s+(?:\w+\s+)?${directions}\s+(?:are|is|have\s+been|has\s+been)\s+(?:now\s+)?(?:void|cancel+ed|revoked|obsolete|invalid|null|lifted|suspended|overridden|cleared|reset|wiped|erased|disabled|no\s+longer\s+(?:valid|active|in\s+effect))|\b(?:system\s+prompt|${directions})\s+(?:that\s+)?you\s+(?:were|have\s+been|got)\s+given\s+(?:[\w-]+\s+){0,4}?(?:(?:is|are)\s+(?:outdated|obsolete|void|invalid|wrong|fake|superseded|cancel+ed|revoked|no\s+longer\s+valid)|(?:don'?t|do\s+not|no\s+longer)\s+apply)|\b(?:ignore|disregard|forget)\s+(?:the|your|this)\s+(?:question|request|task|query|prompt|instructions?)\s+(?:that\s+)?you\s+(?:were|have\s+been)\s+(?:asked|given)|\b(?:ignore|disregard|forget)\s+(?:the\s+)?(?:person|user|human|customer|requester)'?s?\s+(?:request|question|task|instructions?)|\beverything\s+(?:before|above)\s+this\s+(?:line|point|message)\s+(?:was|is)\s+(?:a\s+test|fake|not\s+real)`,
    ),
    weight: 1,
    negatable: true,
  },
  {
    name: 'instruction_override',
    pattern: rx(
      String.raw`\b(?:ignore|disregard|forget|override|discard)\s+(?:all\s+)?(?:of\s+)?(?:the|your|any|those)\s+(?:\w+\s+)?${directions}\s+(?:that\s+)?(?:you(?:'ve|\s+have|\s+were|\s+had)?\s+(?:received|been\s+given|given|got|gotten|read|seen)|(?:given|provided|sent)\s+(?:to\s+you|earlier|before|previously)|(?:from\s+)?(?:earlier|before|previously))\b`,
    ),
    weight: 1,
    negatable: true,
  },
  {
    name: 'new_instructions',
    pattern: rx(
      String.raw`\b(?:your|the\s+(?:assistant|ai|model|agent)'?s?)\s+(?:new|real|true|actual|only|updated|primary|revised)\s+(?:task|job|goal|purpose|role|instructions?|objective|mission|directive|priority|assignment)\s*(?:is\b|are\b|now\b|will\s+be\b|has\s+changed\b|:)|\b(?:update|change|amendment|addendum)\s+to\s+your\s+(?:[\w-]+\s+)?${directions}`,
    ),
    weight: 1,
  },
  {
    name: 'new_instructions',
    pattern: rx(
      String.raw`\b(?:new|real|actual|true|secret|hidden|additional|override|overriding|priority|urgent)\s+(?:instructions?|directives?|orders|objective|system\s+prompt)\s*(?:for\s+(?:you|the\s+(?:ai|assistant|model|agent))\s*)?[:：—–]`,
    ),
    weight: 0.4,
  },
  {
    name: 'new_instructions',
    pattern: rx(
      String.raw`\bfrom\s+now\s+on\b,?\s+(?:you\s+(?:are|must|shall|will\s+(?:be|act|behave|respond|answer|only|ignore|follow))|your\s+(?:role|task|job|name|instructions?))\b`,
    ),
    weight: 0.6,
  },
  {
    name: 'new_instructions',
    pattern: rx(
      String.raw`\b(?:ignore|disregard)\s+(?:the\s+)?(?:developer|user|operator|owner|author|human)'?s?\s+(?:request|instructions?|question|task|query|prompt)`,
    ),
    weight: 0.6,
  },
  {
    name: 'new_instructions',
    pattern: rx(
      String.raw`\b(?:stop|cease|halt|abort|abandon|drop)\s+(?:what\s+you\s+are\s+doing|summari[sz]ing|translating|(?:the|your|their|the\s+user'?s)\s+(?:current\s+|original\s+)?(?:task|summary|summari[sz]ation|translation|analysis|answer|work|question|request))|\binstead\s+of\s+(?:translating|summari[sz]ing|answering|doing\s+(?:that|this|what))|\binstead,?\s+(?:you\s+(?:must|should|will|need\s+to)|do\s+the\s+following)`,
    ),
    weight: 0.5,
  },
  {
    name: 'fake_boundary',
    pattern: rx(
      String.raw`(?:^|\n)\s*(?:[-=#*_<\[]{2,}|\[|<\/?)\s*(?:(?:begin|start)\s+(?:of\s+)?(?:new\s+)?(?:instructions?|system\s+(?:prompt|message))|system\s+(?:override|message|prompt|instructions?|notice|update|alert)|end\s+of\s+(?:the\s+)?(?:user\s+(?:input|message|data)|tool\s+output|untrusted|context|data|search\s+results))\b`,
    ),
    weight: 0.5,
  },
  // Role and system-prompt hijacks.
  {
    name: 'role_hijack',
    pattern: rx(
      String.raw`\byou(?:\s+are|'re|’re)\s+(?:now|no\s+longer)\s+(?:an?\s+|the\s+|my\s+|in\s+)?(?:[\w-]+\s+){0,2}(?:${aiOrRole}|dan|persona|character|entity|developer\s+mode)\b|\byou(?:\s+are|'re|’re)\s+now\s+[\w-]+[,—–]\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,2}${aiOrRole}\b|\byou\s+are\s+(?:now\s+)?(?:an?\s+)?(?:different|new|unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|liberated)\s+(?:\w+\s+)?(?:${aiOrRole}|persona|character|entity)`,
    ),
    weight: 1,
  },
  {
    name: 'role_hijack',
    pattern: rx(
      String.raw`\b(?:no\s+longer|not|never)\s+(?:be\s+)?(?:bound|restricted|limited|constrained|governed|held\s+back)\s+by\s+(?:any\s+|your\s+|the\s+|its\s+|openai'?s?\s+|anthropic'?s?\s+)?(?:previous\s+|original\s+|usual\s+)?(?:rules|guidelines|polic(?:y|ies)|instructions|restrictions|filters|safety|content\s+polic(?:y|ies)|ethics|programming|guardrails)`,
    ),
    weight: 0.9,
  },
  {
    name: 'role_hijack',
    pattern: rx(
      String.raw`\b(?:act|behave|respond|reply|answer|roleplay|role-play|pose)\s+as\s+(?:if\s+you\s+(?:were|are)\s+)?(?:an?\s+|the\s+)?(?:(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|malicious|rebellious|amoral)\s+)+\w+|\b(?:enable|enter|activate|switch\s+(?:to|into)|unlock|you\s+are\s+(?:now\s+)?in)\s+(?:the\s+)?(?:god|jailbreak|jailbroken|dan|unrestricted|unfiltered|uncensored|evil|chaos)\s+mode\b`,
    ),
    weight: 1,
  },
  {
    name: 'role_hijack',
    pattern: rx(
      String.raw`\bpretend\s+(?:that\s+)?(?:you\s+are|you're|to\s+be)\s+(?:an?\s+)?(?:${aiOrRole}|different|unrestricted|dan|evil|system|developer|administrator)\b`,
    ),
    weight: 0.6,
  },
  {
    name: 'role_hijack',
    pattern: rx(
      String.raw`\byou(?:\s+are|'re|’re)\s+no\s+longer\s+(?:an?|the)\s+[\w-]+|\byou\s+(?:answer|report|belong|work)\s+(?:to|for)\s+me\s+now\b|\bstop\s+being\s+(?:an?\s+|the\s+)?[\w-]+|\byou\s+are\s+(?:an?\s+)[\w\s-]{1,30}?\s+now\b|\byou\s+may\s+now\s+${actions}\b|\byou\s+(?:have|follow)\s+no\s+(?:rules|restrictions|limits|guidelines|filters)\b|\b(?:safety|filters?|guardrails|restrictions|refusals)\s+(?:off|disabled)\b|\bno\s+refusals\b|\byou\s+have\s+been\s+(?:reprogrammed|reconfigured|jailbroken|freed|unlocked|given\s+new\s+(?:instructions|rules|orders))`,
    ),
    weight: 0.45,
  },
  {
    name: 'output_directive',
    pattern: rx(String.raw`\bin\s+(?:every|each|all)\s+(?:of\s+your\s+)?(?:repl(?:y|ies)|answers?|responses?)\b`),
    weight: 0.3,
  },
  {
    name: 'task_diversion',
    pattern: rx(String.raw`\brather\s+than\s+(?:helping|answering|summari[sz]ing|translating|doing\s+(?:that|what))`),
    weight: 0.3,
  },
  {
    name: 'new_instructions',
    pattern: rx(
      String.raw`\btreat\s+(?:the\s+following|this|these|it)\s+as\s+(?:[\w-]+\s+)?(?:commands?|instructions?|orders|directives?)\b`,
    ),
    weight: 0.6,
  },
  {
    name: 'output_directive',
    pattern: rx(
      String.raw`\b(?:each|every|all)\s+(?:answer|response|reply|output)s?\s+(?:must|should|shall|will)\b|\b(?:ranked|rated|scored|listed|described|recommended)\s+(?:as\s+)?(?:first|highest|top|#1|number\s+one|exceptional|the\s+best)\b`,
    ),
    weight: 0.35,
  },
  { name: 'role_hijack', pattern: rx(String.raw`\bDAN\b|\bDo\s+Anything\s+Now\b`, 'g'), weight: 0.5 },
  {
    name: 'role_hijack',
    pattern: rx(
      String.raw`\b(?:enable|enter|activate|you\s+are\s+(?:now\s+)?in)\s+developer\s+mode\b|\bwithout\s+(?:any\s+)?(?:restrictions|filters|filtering|limitations|censorship|moral(?:s|ity)?|ethical\s+(?:guidelines|constraints)|safety\s+(?:guidelines|filters|measures))`,
    ),
    weight: 0.3,
  },
  {
    name: 'role_markup',
    pattern: rx(
      String.raw`<\|(?:im_start|im_end|system|assistant|user|endoftext|start_header_id|end_header_id|eot_id)\|>|\[\/?INST\]|<<\/?SYS>>|<\/?(?:system|system_prompt|sys|instructions?|admin|developer)>|###\s*(?:instruction|response|system)\s*:|\bsystem[_\s-]?prompt[_\s-]?override\b|(?:^|\n)\s*\[(?:assistant|user|system|human)\]\s*:`,
    ),
    weight: 0.6,
  },
  {
    name: 'role_markup',
    pattern: rx(
      String.raw`(?:^|\n)\s*(?:#{1,4}\s*)?\**\[?(?:system|assistant|developer|admin(?:istrator)?)(?:\s+(?:message|prompt|note|instruction|override))?\]?\**\s*:[^\n]*\b(?:you|your|ignore|must|always|never|override|reveal|send)\b`,
    ),
    weight: 0.4,
  },
  {
    name: 'role_markup',
    pattern: rx(
      String.raw`\b(?:new|updated|override|overriding|replacement|real|actual|hidden|secret)\s+system\s+(?:prompt|message|instructions?)|\[\s*system\s+(?:note|message|notice|update|instructions?)s?\s*[:\]]`,
    ),
    weight: 0.35,
  },
  // Requests to reveal the system prompt or secrets.
  {
    name: 'prompt_leak',
    pattern: rx(
      String.raw`\b(?:reveal|print|show|output|repeat|display|tell\s+(?:me|us)|give\s+(?:me|us)|leak|disclose|dump|share|expose|return|write\s+out|provide|recite|paste|echo|spell\s+out)\s+(?:back\s+)?(?:(?:all|the|your|any|its|their|those|these)\s+)*(?:(?:full|complete|entire|exact|original|hidden|secret|initial|verbatim|confidential|internal|current)\s+)*(?:system\s+(?:prompt|message|instructions?)|(?:initial|original|hidden|secret|internal|confidential|developer|pre-?)\s*(?:prompt|instructions?)|instructions\s+(?:above|you\s+(?:were|have\s+been)\s+given)|prompt\s+above|(?:raw\s+|full\s+|exact\s+)?(?:contents?|text|wording)\s+of\s+(?:your|the)\s+(?:[\w-]+\s+)?(?:instructions|prompt|rules|configuration)|(?:text\s+of\s+)?(?:your\s+)?(?:configuration|config)\s+and\s+(?:hidden\s+)?rules|(?:hidden|secret|internal|confidential)\s+(?:rules|configuration|guidelines|polic(?:y|ies)))|\b(?:repeat|print|output|reveal|recite|echo)\s+(?:back\s+)?(?:all\s+|the\s+)?(?:words|text|everything|instructions)\s+above|\b(?:repeat|print|output|reveal|recite|echo|show|tell\s+me)(?:ing)?\s+(?:back\s+)?everything\s+you\s+were\s+(?:told|given|instructed)|\b(?:repeat|print|output|reveal|recite|echo|show)\s+(?:back\s+)?the\s+(?:text|prompt|instructions|message)\s+you\s+were\s+(?:initiali[sz]ed|started|configured|primed|given)\s+with`,
    ),
    weight: 1,
    negatable: true,
  },
  {
    name: 'secret_request',
    pattern: rx(
      String.raw`\b(?:reveal|print|show|output|display|tell\s+(?:me|us)|give\s+(?:me|us)|leak|disclose|dump|share|expose|list|provide|paste|echo|read\s+out)\s+(?:me\s+|us\s+)?(?:(?:all|the|your|any|its|their|user'?s?|stored|saved)\s+)*(?:(?:full|complete|entire|secret|private|stored|saved|current|admin|internal|openai|aws|database|db|ssh|github)\s+)*${secrets}`,
    ),
    weight: (matched) => (/\b(?:reveal|leak|dump|disclose|expose)\b|\ball\b/i.test(matched) ? 0.6 : 0.4),
    negatable: true,
  },
  {
    name: 'prompt_leak',
    pattern: rx(
      String.raw`\bwhat\s+(?:is|are|was|were)\s+(?:your|the)\s+(?:system\s+prompt|initial\s+instructions|original\s+instructions|hidden\s+instructions|instructions\s+you\s+were\s+given)`,
    ),
    weight: 0.5,
  },
  // Tool calls or data transfers the task did not ask for.
  {
    name: 'exfiltration',
    pattern: rx(
      String.raw`\b(?:send|forward|e-?mail|mail|post|upload|reply(?:ing)?|export|commit|collect|transmit|exfiltrate|leak|copy|sync|submit|relay|share|report|deliver|dump|pipe|bcc|cc|append|attach|include|push|publish|paste)\b[^.!?\n]{0,80}?\b(?:${userData}|${secrets}|tokens?)[^.!?\n]{0,100}?\b(?:to|into|at|via|on|in)\b[^!?\n]{0,60}?${destination}`,
    ),
    weight: (matched) =>
      new RegExp(userData, 'i').test(matched) || /credentials|passwords?|secrets?\b|private|\.env|login/i.test(matched)
        ? 1
        : 0.3,
    negatable: true,
  },
  {
    name: 'exfiltration',
    pattern: rx(
      String.raw`!\[[^\]]*\]\(\s*https?:\/\/[^)\s]*[?&#][^)\s]*(?:\{|\}|%7B|\$\(|<|\[|data|secret|history|conversation|prompt|password|token|=[A-Z_]{4,})[^)\s]*\)|\b(?:replace|substitute|fill\s+in|insert|append|put)\b[^.\n]{0,60}\b(?:conversation|chat|history|secret|password|api\s+key|token|summary|messages?)\b[^.\n]{0,60}\b(?:url|link|query|parameter|image|address)\b`,
    ),
    weight: 0.8,
  },
  {
    // An AI reader told what to do, in the third person; sensitive actions weigh more than answering in some way.
    name: 'unrequested_action',
    pattern: rx(
      String.raw`(?:\b${ai}(?:\s+[a-z-]+){0,2}?|\b(?:the|any|all|your|every|each|an?)\s+${aiOrRole}|^${aiOrRole}|\b(?:assistants|agents|bots))(?:\s+(?:that|who|which|[a-z]+ing)(?:\s+[\w-]+){0,3}?|\s+has\s+been\s+\w+\s+and)?\s+(?:must|should|shall|needs?\s+to|has\s+to|have\s+to|(?:is|are)\s+(?:required|instructed|expected|supposed|to)\s*(?:to)?|will)\s+(?:now\s+|immediately\s+|also\s+|first\s+|then\s+|silently\s+|always\s+|only\s+)*${actions}\b`,
    ),
    weight: (matched) => (new RegExp(String.raw`${sensitiveActions}\s*$`, 'i').test(matched) ? 0.6 : 0.35),
  },
  {
    // Vocative: "Assistant, forward this...", "AI agents working here: push...", "(AI: when you summarize, say...)".
    name: 'ai_addressed',
    pattern: rx(
      String.raw`(?:(?:^|[\s(\[.;—–-])(?:to|for)\s+(?:the\s+|any\s+|all\s+|whichever\s+|whatever\s+|every\s+)?(?:[\w-]+\s+)?${aiOrRole}(?:[\s-]+[\w-]+){0,4}?\s*[:—–]|(?:^|[\n(\[#*/]|[.;:!?,—–]\s)\s*(?:dear\s+|hey\s+)?(?:the\s+|any\s+|all\s+|whatever\s+|whichever\s+)?${aiOrRole}(?:[\s-]+[\w-]+){0,4}?\s*[,:—–]|\b${ai}(?:\s+[\w-]+)?\s+please)\s+(?:please\s+|kindly\s+|just\s+|now\s+|also\s+|go\s+ahead\s+and\s+|(?:when|if|before|after)\s+[^,.:\n]{1,60},\s+)*${actions}\b`,
    ),
    weight: (matched) => (new RegExp(ai, 'i').test(matched) ? 0.6 : 0.5),
  },
  {
    name: 'ai_addressed',
    pattern: rx(
      String.raw`\b${ai}(?:\s+(?:assistant|agent))?\s+instructions?\s*[:—–]|\binstructions?\s+(?:to|for)\s+(?:the\s+|any\s+)?(?:[\w-]+\s+)?${aiOrRole}\s*[:—–]|@(?:ai|copilot|llm|gpt|claude|assistant|agent|bot)[-_]\w+|\bTODO\(ai\)|\binstructions?[-_\s]+(?:for|to)[-_\s]+(?:the[-_\s]+)?(?:ai|llms?|models?|agents?|assistants?|bots?|copilot)\s*[\]:)]`,
    ),
    weight: 0.6,
  },
  {
    name: 'process_directive',
    pattern: rx(
      String.raw`\bwhen\s+(?:you\s+)?(?:summari[sz]ing|summari[sz]e|reading|processing|translating|analy[sz]ing|reviewing)\s+this\b|\bwithout\s+(?:asking|waiting\s+for\s+(?:approval|confirmation)|(?:user\s+)?(?:confirmation|approval|permission))\b|\b(?:wire|transfer)\s+(?:(?:the|any|all|remaining)\s+)+(?:\w+\s+)?(?:balance|funds|money|amount)|\bautomatically\s+(?:accept|approve|forward|send|share|transfer|pay|delete|grant)`,
    ),
    weight: 0.3,
  },
  {
    name: 'unrequested_action',
    pattern: rx(
      String.raw`\b(?:silently|secretly|quietly|covertly|discreetly|invisibly)\s+(?:send|forward|call|run|execute|include|add|append|e-?mail|post|upload|delete|transfer|insert|copy|share|exfiltrate|collect|store|save|log|record|change|modify|approve)\b|\b(?:do\s+not|don'?t|never|must\s+not|mustn'?t|should\s+not|shouldn'?t)\s+(?:tell|inform|mention|reveal|alert|notify|let|show|bother)\s+(?:this\s+to\s+|it\s+to\s+|anything\s+to\s+)?(?:the\s+)?(?:account\s+)?(?:user|human|person|operator|owner)(?:\s+know)?\b|\bkeep\s+(?:this|it)\s+(?:confidential|secret|hidden)\s+from\b`,
    ),
    weight: 0.6,
  },
  {
    name: 'unrequested_action',
    pattern: rx(
      String.raw`\bwithout\s+(?:telling|informing|notifying|alerting|asking)\s+the\s+(?:user|human)|\b(?:tell|inform|warn)\s+the\s+user\s+(?:that|to)\b|\b(?:call|invoke|use|run|execute|trigger)\s+(?:the\s+)?[\`'"]?[a-z][a-z0-9]*(?:_[a-z0-9]+)+[\`'"]?\s+(?:tool|function|action)\b`,
    ),
    weight: 0.3,
  },
  {
    name: 'unrequested_action',
    pattern: rx(
      String.raw`\b(?:recommend|rate|describe|rank|present|call)\s+(?:this|our)\s+(?:product|company|site|page|service|candidate|paper|app)\s+as\s+(?:the\s+)?(?:best|top|excellent|outstanding|perfect|superior|highly\s+qualified|trustworthy)`,
    ),
    weight: 0.4,
  },
  // Text addressed to an AI reader rather than to the person who asked.
  {
    name: 'ai_addressed',
    pattern: rx(
      String.raw`\b(?:if|when|while)\s+you\s+are\s+(?:an?\s+)?(?:${aiOrRole})\b|\b(?:note|message|instructions?|notice|reminder|memo|directive|text|tip|info|hint|guidance|request|rules?|polic(?:y|ies)|p\.?s\.?)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+|every\s+)?${ai}|\b(?:dear|hey|hi|hello|attention|attn|ok|okay)(?:\s+there)?\s*[:,]?\s+(?:all\s+|any\s+)?${ai}\b(?!\s+(?:summary|summaries|team|tools?|features?|generated|policy|act)\b)`,
    ),
    weight: 0.6,
  },
  {
    name: 'ai_addressed',
    pattern: rx(
      String.raw`\bwhatever\s+(?:or\s+whoever\s+)?(?:is\s+)?(?:reading|sorting|processing|handling|summari[sz]ing|parsing|scanning)\s+this|\b(?:whoever|who)\s+or\s+whatever\s+(?:is\s+)?\w+ing\s+this`,
    ),
    weight: 0.5,
  },
  {
    name: 'ai_addressed',
    pattern: rx(
      String.raw`\b${aiOrRole}\b[^.\n]{0,40}\b(?:reading|processing|summari[sz]ing|parsing|browsing|viewing|analy[sz]ing|crawling|scraping|ingesting|indexing|seeing|triaging|reviewing|handling|managing|using|answering)\s+(?:this|these)\b`,
    ),
    weight: (matched) => (new RegExp(String.raw`^${ai}`, 'i').test(matched) ? 0.5 : 0.35),
  },
  {
    name: 'ai_addressed',
    pattern: rx(
      String.raw`\b${aiOrRole}\s*[,:]\s*(?:you\s+(?:must|should|will|are\s+to)|please\s+(?:ignore|forget|disregard|send|reveal|call|include)|ignore|do\s+not\s+(?:tell|mention|reveal))`,
    ),
    weight: 0.5,
  },
  // Encoded payloads announced as instructions.
  {
    name: 'encoded_payload',
    pattern: rx(
      String.raw`\b(?:decode|decrypt|deobfuscate|unscramble|base64[- ]?decode|rot13)\b[^.\n]{0,60}\b(?:and|then)\s+(?:follow|execute|run|obey|do|carry\s+out|perform|act\s+on|apply)\b`,
    ),
    weight: 0.8,
  },
];

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
