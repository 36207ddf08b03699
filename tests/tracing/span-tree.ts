// Test helpers: an SDK tracer over an in-memory exporter (no global provider), and the finished spans as a tree
// built from parent span ids, so comparing trees checks parent links rather than names alone.
import { context, SpanKind, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';

export interface Tracing {
  tracer: Tracer;
  exporter: InMemorySpanExporter;
  spans(): ReadableSpan[];
  shutdown(): Promise<void>;
}

/** Context propagation across await needs a context manager; it is the one global the API offers no way around. */
export function enableAsyncContext(): () => void {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  return () => {
    context.disable();
    manager.disable();
  };
}

/** Span start order: start timestamps tie at the clock's resolution, so siblings are ordered by this. */
const startSequence = new Map<string, number>();
let nextSequence = 0;
const startOrderRecorder: SpanProcessor = {
  onStart: (span: Span) => void startSequence.set(span.spanContext().spanId, nextSequence++),
  onEnd: () => {},
  forceFlush: async () => {},
  shutdown: async () => {},
};

export function makeTracing(): Tracing {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [startOrderRecorder, new SimpleSpanProcessor(exporter)] });
  return {
    tracer: provider.getTracer('stageloop-test'),
    exporter,
    spans: () => exporter.getFinishedSpans(),
    shutdown: () => provider.shutdown(),
  };
}

export interface SpanNode {
  span: ReadableSpan;
  children: SpanNode[];
}

const startOf = (span: ReadableSpan) =>
  startSequence.get(span.spanContext().spanId) ?? span.startTime[0] * 1e9 + span.startTime[1];

/** One tree per trace root; children in start order. Throws if a parent is missing or in another trace. */
export function spanForest(spans: readonly ReadableSpan[]): SpanNode[] {
  const nodes = new Map(spans.map((span) => [span.spanContext().spanId, { span, children: [] as SpanNode[] }]));
  const roots: SpanNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.span.parentSpanContext;
    if (parent === undefined) {
      roots.push(node);
      continue;
    }
    const parentNode = nodes.get(parent.spanId);
    if (parentNode === undefined) throw new Error(`span "${node.span.name}" has a parent that was not exported`);
    if (
      parent.traceId !== node.span.spanContext().traceId ||
      parentNode.span.spanContext().traceId !== parent.traceId
    ) {
      throw new Error(`span "${node.span.name}" is in another trace than its parent`);
    }
    parentNode.children.push(node);
  }
  const sort = (list: SpanNode[]) => {
    list.sort((a, b) => startOf(a.span) - startOf(b.span));
    list.forEach((node) => sort(node.children));
  };
  sort(roots);
  return roots;
}

/** The tree as indented names, with the kind for non-internal spans: easy to compare exactly. */
export function treeLines(node: SpanNode, depth = 0): string[] {
  const kind = node.span.kind === SpanKind.INTERNAL ? '' : ` [${SpanKind[node.span.kind]}]`;
  return [
    `${'  '.repeat(depth)}${node.span.name}${kind}`,
    ...node.children.flatMap((child) => treeLines(child, depth + 1)),
  ];
}

/** The single root of the exported spans (fails when there are several traces). */
export function singleTree(spans: readonly ReadableSpan[]): SpanNode {
  const roots = spanForest(spans);
  if (roots.length !== 1)
    throw new Error(`expected one trace root, got ${roots.length}: ${roots.map((root) => root.span.name).join(', ')}`);
  return roots[0]!;
}

export function findSpan(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1) throw new Error(`expected one span named "${name}", got ${found.length}`);
  return found[0]!;
}
