// The fixture items the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16) calls by name, as
// its scenarios' texts specify them (`conformance list` and each scenario's description): `test_*` tools, `test://`
// resources and `test_*` prompts. They are added to stageloop's own MCP server (tasks, run resources, pipeline
// prompts, completions, logging and the /mcp transport stay stageloop's), for the scenarios that need them.
import {
  completable,
  fromJsonSchema,
  ResourceTemplate,
  type ElicitRequestFormParams,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';

/** A 1x1 red PNG and a 1-sample WAV: the smallest media the content scenarios take. */
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const wav = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==';

/** The suite's events ask for a pause between notifications; a resolved timer, not a wait on a condition. */
const pause = () => new Promise((resolve) => setTimeout(resolve, 50));

export function withConformanceFixtures(server: McpServer): McpServer {
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
  server.registerTool('test_simple_text', { description: 'The conformance fixture test_simple_text' }, () =>
    text('This is a simple text response for testing.'),
  );
  server.registerTool('test_image_content', { description: 'The conformance fixture test_image_content' }, () => ({
    content: [{ type: 'image', data: png, mimeType: 'image/png' }],
  }));
  server.registerTool('test_audio_content', { description: 'The conformance fixture test_audio_content' }, () => ({
    content: [{ type: 'audio', data: wav, mimeType: 'audio/wav' }],
  }));
  server.registerTool(
    'test_embedded_resource',
    { description: 'The conformance fixture test_embedded_resource' },
    () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  );
  server.registerTool(
    'test_multiple_content_types',
    { description: 'The conformance fixture test_multiple_content_types' },
    () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: png, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: '{"test":"data","value":123}',
          },
        },
      ],
    }),
  );
  server.registerTool(
    'test_tool_with_logging',
    { description: 'The conformance fixture test_tool_with_logging' },
    async (ctx) => {
      for (const [index, data] of [
        'Tool execution started',
        'Tool processing data',
        'Tool execution completed',
      ].entries()) {
        if (index > 0) await pause();
        await ctx.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data } });
      }
      return text('Tool with logging executed successfully');
    },
  );
  server.registerTool('test_error_handling', { description: 'The conformance fixture test_error_handling' }, () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
  server.registerTool(
    'test_tool_with_progress',
    { description: 'The conformance fixture test_tool_with_progress' },
    async (ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await pause();
        if (progressToken !== undefined)
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress, total: 100 },
          });
      }
      return text('Tool with progress executed successfully');
    },
  );
  server.registerTool(
    'test_sampling',
    { description: 'The conformance fixture test_sampling', inputSchema: z.object({ prompt: z.string() }) },
    async ({ prompt }, ctx) => {
      const reply = await ctx.mcpReq.requestSampling({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 100,
      });
      const content = reply.content as { type: string; text?: string };
      return text(`LLM response: ${content.text ?? ''}`);
    },
  );
  const elicit = async (ctx: ServerContext, params: object) =>
    ctx.mcpReq.elicitInput(params as ElicitRequestFormParams);
  server.registerTool(
    'test_elicitation',
    { description: 'The conformance fixture test_elicitation', inputSchema: z.object({ message: z.string() }) },
    async ({ message }, ctx) => {
      const answer = await elicit(ctx, {
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      });
      return text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
    },
  );
  server.registerTool(
    'test_elicitation_sep1034_defaults',
    { description: 'The conformance fixture test_elicitation_sep1034_defaults' },
    async (ctx) => {
      const answer = await elicit(ctx, {
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
        },
      });
      return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
    },
  );
  server.registerTool(
    'test_elicitation_sep1330_enums',
    { description: 'The conformance fixture test_elicitation_sep1330_enums' },
    async (ctx) => {
      const titled = (prefix: string, titles: string[]) =>
        titles.map((title, index) => ({ const: `${prefix}${index + 1}`, title }));
      const answer = await elicit(ctx, {
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            titledSingle: { type: 'string', oneOf: titled('value', ['First Option', 'Second Option', 'Third Option']) },
            legacyEnum: {
              type: 'string',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
            titledMulti: {
              type: 'array',
              items: { anyOf: titled('value', ['First Choice', 'Second Choice', 'Third Choice']) },
            },
          },
        },
      });
      return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
    },
  );
  server.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features',
      inputSchema: fromJsonSchema({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
        additionalProperties: false,
      }),
    },
    () => text('ok'),
  );
  server.registerTool(
    'test_reconnection',
    { description: 'The conformance fixture test_reconnection' },
    async (ctx) => {
      // The suite's SSE polling scenario: the call's stream closes mid-call and the client resumes it (Last-Event-ID).
      ctx.http?.closeSSE?.();
      await pause();
      return text('Reconnection test completed successfully');
    },
  );
  server.registerResource('static-text', 'test://static-text', { mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }));
  server.registerResource('static-binary', 'test://static-binary', { mimeType: 'image/png' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'image/png', blob: png }],
  }));
  server.registerResource('watched-resource', 'test://watched-resource', { mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content.' }],
  }));
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { mimeType: 'application/json' },
    (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }),
        },
      ],
    }),
  );
  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with arguments',
      argsSchema: z.object({
        arg1: completable(z.string(), (value) => ['paris', 'park', 'party'].filter((word) => word.startsWith(value))),
        arg2: z.string(),
      }),
    },
    ({ arg1, arg2 }) => ({
      messages: [
        { role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } },
      ],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    { description: 'A prompt with an embedded resource', argsSchema: z.object({ resourceUri: z.string() }) },
    ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );
  server.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: png, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
  return server;
}
