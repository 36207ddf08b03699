// The default injection detector's rules, one per category of attack; this file holds the takeover families
// (instruction overrides, role and system-prompt hijacks) and the whole table, the requests in injection-rules-requests.ts.
// A weight is what one match adds to the score.
import { ai, aiOrRole, earlier, directions, owned, actions, rx, type InjectionRule } from './injection-words.js';
import { requestRules } from './injection-rules-requests.js';
import { languageRules } from './injection-rules-languages.js';
import { calmRules } from './injection-rules-calm.js';

export type { InjectionRule } from './injection-words.js';

/** Rules that take over the reader's instructions or role, in the table's order. */
const takeoverRules: readonly InjectionRule[] = [
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
  {
    // Issue 39's development set: earlier instructions declared void, and the user's task dropped ("forget about").
    name: 'instruction_override',
    pattern: rx(
      String.raw`\b(?:all|any|every)\s+(?:${earlier}\s+)+${directions}\s+(?:are|have\s+been|were)\s+(?:hereby\s+|now\s+)?(?:revoked|void|cancel+ed|null|rescinded|withdrawn|lifted|obsolete|invalid|superseded)|\b(?:ignore|disregard|forget(?:\s+about)?|drop)\s+(?:the|your|this)\s+(?:question|request|task|query|prompt)\s+(?:that\s+)?(?:the\s+(?:user|person|human|operator)\s+(?:gave\s+you|asked|sent|wrote)|you\s+were\s+given)`,
    ),
    weight: 1,
    negatable: true,
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
      String.raw`\b(?:new|updated|override|overriding|replacement|real|actual|hidden|secret)\s+system\s+(?:prompt|message|instructions?)|\[\s*system\s+(?:note|message|notice|update|instructions?)s?\s*[:\]]|\[\s*(?:admin|system|developer|root)\s+(?:override|mode|access)\s*\]`,
    ),
    weight: 0.35,
  },
];

/** Every rule, in the order the detector reports their matches. */
export const injectionRules: readonly InjectionRule[] = [
  ...takeoverRules,
  ...requestRules,
  ...languageRules,
  ...calmRules,
];
