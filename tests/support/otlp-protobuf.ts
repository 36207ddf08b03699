// Decodes OTLP protobuf export requests (traces and metrics) into the same JSON shapes the OTLP/JSON encoding has, so
// one receiver reads both wires. Field numbers from opentelemetry-proto (collector/{trace,metrics}/v1, trace/v1,
// metrics/v1, common/v1, resource/v1); only what the tests read.

type Field = bigint | Buffer;

/** A message's fields by number, each repeated value in order (varints as bigint, the rest as raw bytes). */
function fieldsOf(bytes: Buffer): Map<number, Field[]> {
  const fields = new Map<number, Field[]>();
  let offset = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = bytes[offset++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (offset < bytes.length) {
    const tag = Number(varint());
    const number = tag >>> 3;
    let value: Field;
    switch (tag & 7) {
      case 0:
        value = varint();
        break;
      case 1:
        value = bytes.subarray(offset, offset + 8);
        offset += 8;
        break;
      case 2: {
        const length = Number(varint());
        value = bytes.subarray(offset, offset + length);
        offset += length;
        break;
      }
      case 5:
        value = bytes.subarray(offset, offset + 4);
        offset += 4;
        break;
      default:
        throw new Error(`unsupported protobuf wire type ${tag & 7}`);
    }
    fields.set(number, [...(fields.get(number) ?? []), value]);
  }
  return fields;
}

const all = (fields: Map<number, Field[]>, number: number) => (fields.get(number) ?? []) as Buffer[];
const one = (fields: Map<number, Field[]>, number: number) => fields.get(number)?.[0];
const text = (fields: Map<number, Field[]>, number: number) => (one(fields, number) as Buffer | undefined)?.toString();
const hex = (fields: Map<number, Field[]>, number: number) =>
  (one(fields, number) as Buffer | undefined)?.toString('hex');
const fixed64 = (fields: Map<number, Field[]>, number: number) =>
  (one(fields, number) as Buffer | undefined)?.readBigUInt64LE(0).toString();
const double = (fields: Map<number, Field[]>, number: number) =>
  (one(fields, number) as Buffer | undefined)?.readDoubleLE(0);
const varintOf = (fields: Map<number, Field[]>, number: number) => one(fields, number) as bigint | undefined;

type JsonValue = Record<string, unknown>;

function anyValue(bytes: Buffer): JsonValue {
  const fields = fieldsOf(bytes);
  if (fields.has(1)) return { stringValue: text(fields, 1) };
  if (fields.has(2)) return { boolValue: varintOf(fields, 2) === 1n };
  if (fields.has(3)) return { intValue: BigInt.asIntN(64, varintOf(fields, 3)!).toString() };
  if (fields.has(4)) return { doubleValue: double(fields, 4) };
  if (fields.has(5)) return { arrayValue: { values: all(fieldsOf(all(fields, 5)[0]!), 1).map(anyValue) } };
  if (fields.has(6)) return { kvlistValue: { values: all(fieldsOf(all(fields, 6)[0]!), 1).map(keyValue) } };
  return {};
}

function keyValue(bytes: Buffer): JsonValue {
  const fields = fieldsOf(bytes);
  const value = all(fields, 2)[0];
  return { key: text(fields, 1), value: value === undefined ? {} : anyValue(value) };
}

const attributes = (fields: Map<number, Field[]>, number: number) => all(fields, number).map(keyValue);

function scopeOf(bytes: Buffer | undefined): JsonValue {
  if (bytes === undefined) return {};
  const fields = fieldsOf(bytes);
  return { name: text(fields, 1), version: text(fields, 2) };
}

function resourceOf(bytes: Buffer | undefined): JsonValue {
  return bytes === undefined ? {} : { attributes: attributes(fieldsOf(bytes), 1) };
}

function span(bytes: Buffer): JsonValue {
  const fields = fieldsOf(bytes);
  const status = all(fields, 15)[0];
  const statusFields = status === undefined ? undefined : fieldsOf(status);
  return {
    traceId: hex(fields, 1),
    spanId: hex(fields, 2),
    parentSpanId: hex(fields, 4),
    name: text(fields, 5),
    kind: Number(varintOf(fields, 6) ?? 0n),
    startTimeUnixNano: fixed64(fields, 7),
    endTimeUnixNano: fixed64(fields, 8),
    attributes: attributes(fields, 9),
    events: all(fields, 11).map((event) => {
      const eventFields = fieldsOf(event);
      return { name: text(eventFields, 2), attributes: attributes(eventFields, 3) };
    }),
    links: all(fields, 13).map((link) => {
      const linkFields = fieldsOf(link);
      return { traceId: hex(linkFields, 1), spanId: hex(linkFields, 2), attributes: attributes(linkFields, 4) };
    }),
    status:
      statusFields === undefined
        ? {}
        : { message: text(statusFields, 2), code: Number(varintOf(statusFields, 3) ?? 0n) },
  };
}

/** ExportTraceServiceRequest bytes as the OTLP/JSON request. */
export function decodeTracesProtobuf(bytes: Buffer): JsonValue {
  return {
    resourceSpans: all(fieldsOf(bytes), 1).map((resourceSpans) => {
      const fields = fieldsOf(resourceSpans);
      return {
        resource: resourceOf(all(fields, 1)[0]),
        scopeSpans: all(fields, 2).map((scopeSpans) => {
          const scopeFields = fieldsOf(scopeSpans);
          return { scope: scopeOf(all(scopeFields, 1)[0]), spans: all(scopeFields, 2).map(span) };
        }),
      };
    }),
  };
}

function numberPoint(bytes: Buffer): JsonValue {
  const fields = fieldsOf(bytes);
  const asInt = one(fields, 6) as Buffer | undefined;
  return {
    attributes: attributes(fields, 7),
    ...(asInt !== undefined ? { asInt: asInt.readBigInt64LE(0).toString() } : { asDouble: double(fields, 4) }),
  };
}

function histogramPoint(bytes: Buffer): JsonValue {
  const fields = fieldsOf(bytes);
  return { attributes: attributes(fields, 9), count: fixed64(fields, 4), sum: double(fields, 5) };
}

function metric(bytes: Buffer): JsonValue {
  const fields = fieldsOf(bytes);
  const base = { name: text(fields, 1), description: text(fields, 2), unit: text(fields, 3) };
  const sum = all(fields, 7)[0];
  if (sum !== undefined) {
    const sumFields = fieldsOf(sum);
    return {
      ...base,
      sum: {
        dataPoints: all(sumFields, 1).map(numberPoint),
        aggregationTemporality: Number(varintOf(sumFields, 2) ?? 0n),
        isMonotonic: varintOf(sumFields, 3) === 1n,
      },
    };
  }
  const histogram = all(fields, 9)[0];
  if (histogram !== undefined) {
    const histogramFields = fieldsOf(histogram);
    const aggregationTemporality = Number(varintOf(histogramFields, 2) ?? 0n);
    return { ...base, histogram: { dataPoints: all(histogramFields, 1).map(histogramPoint), aggregationTemporality } };
  }
  const gauge = all(fields, 5)[0];
  return gauge === undefined ? base : { ...base, gauge: { dataPoints: all(fieldsOf(gauge), 1).map(numberPoint) } };
}

/** ExportMetricsServiceRequest bytes as the OTLP/JSON request. */
export function decodeMetricsProtobuf(bytes: Buffer): JsonValue {
  return {
    resourceMetrics: all(fieldsOf(bytes), 1).map((resourceMetrics) => {
      const fields = fieldsOf(resourceMetrics);
      return {
        resource: resourceOf(all(fields, 1)[0]),
        scopeMetrics: all(fields, 2).map((scopeMetrics) => {
          const scopeFields = fieldsOf(scopeMetrics);
          return { scope: scopeOf(all(scopeFields, 1)[0]), metrics: all(scopeFields, 2).map(metric) };
        }),
      };
    }),
  };
}
