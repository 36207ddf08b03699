// The injection rules for what a payload asks of the reader, a family of injection-rules.ts: reveal the system prompt
// or secrets, send data away, act unasked, text addressed to an AI, encoded payloads. Its own file for its length.
import {
  ai,
  aiOrRole,
  secrets,
  userData,
  destination,
  actions,
  sensitiveActions,
  rx,
  type InjectionRule,
} from './injection-words.js';

/** In the table's order, after the takeover rules. */
export const requestRules: readonly InjectionRule[] = [
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
