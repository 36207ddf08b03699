// A tool result's content as text for the model: text as is, every other kind described, none dropped silently.
import type { CallToolResult } from '@modelcontextprotocol/client';

type ContentBlock = CallToolResult['content'][number];

export function contentText(result: Pick<CallToolResult, 'content' | 'structuredContent'>): string {
  const blocks = result.content ?? [];
  // A server may answer with structured content only (it should mirror it as text, not all do).
  if (blocks.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return blocks.map(describeBlock).join('\n');
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} content: ${block.mimeType}, ${decodedBytes(block.data)} bytes, not shown]`;
    case 'resource_link':
      return `[resource link: ${block.uri}${block.name ? ` (${block.name})` : ''}${block.mimeType ? `, ${block.mimeType}` : ''}]`;
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string')
        return `[resource ${resource.uri}]\n${resource.text}`;
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return `[resource ${resource.uri}: ${resource.mimeType ?? 'binary'}, ${decodedBytes(blob)} bytes, not shown]`;
    }
    default:
      return `[content of type ${JSON.stringify((block as { type: unknown }).type)}, not shown]`;
  }
}

/** Size of base64 data once decoded, without decoding it. */
function decodedBytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}
