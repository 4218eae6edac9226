import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { eventually, type ExportingReceiver, exportToOtlpReceiver } from '@platform/test-kit';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import {
  contextFrom,
  contextFromStored,
  currentTraceId,
  inChildSpan,
  inSpan,
  SpanKind,
  startHttpClientSpan,
  startSpan,
  startTracing,
  storedTraceContext,
  traceCarrier,
  traceFields,
  type Tracing,
  tracingIsOn,
} from '../src';

chai.use(chaiAsPromised);
const { expect } = chai;

describe('tracing', () => {
  describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    it('is off: no SDK, no context manager, and the helpers only run the work', async () => {
      const tracing = await startTracing('test-service', {});
      expect(tracing.on).to.equal(false);
      expect(tracingIsOn()).to.equal(false);
      const seen = await inSpan('work', {}, async (span) => ({ span, ids: traceFields(), carrier: traceCarrier() }));
      expect(seen).to.deep.equal({ span: undefined, ids: undefined, carrier: undefined });
      expect(storedTraceContext()).to.equal(null);
      expect(currentTraceId()).to.equal(undefined);
      // No context manager is installed: a context made active is not seen inside (the API's no-op manager).
      const span = trace.wrapSpanContext({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 });
      expect(context.with(trace.setSpan(ROOT_CONTEXT, span), () => context.active())).to.equal(ROOT_CONTEXT);
      // Nor a tracer provider: the API hands out its no-op tracer's spans.
      expect(trace.getTracer('x').startSpan('y').isRecording()).to.equal(false);
      await tracing.shutdown();
    });
  });

  describe('with an OTLP endpoint (http/json)', () => {
    let receiver: ExportingReceiver;
    let tracing: Tracing;
    beforeEach(async () => {
      receiver = await exportToOtlpReceiver();
      tracing = await startTracing('test-service');
    });

    afterEach(async () => {
      await tracing.shutdown();
      await receiver.restore();
    });

    it('exports spans under the default service name, children under their parent, flushed by shutdown', async () => {
      let traceId: string | undefined;
      await inSpan('outer', { kind: SpanKind.SERVER }, async () => {
        traceId = currentTraceId();
        await inChildSpan('inner', { kind: SpanKind.CLIENT }, async () => {});
      });
      // Outside any span, a child span opens no trace.
      await inChildSpan('orphan', {}, async () => {});
      await tracing.shutdown();
      const spans = receiver.spans;
      expect(spans.map((s) => s.name).sort()).to.deep.equal(['inner', 'outer']);
      const outer = spans.find((s) => s.name === 'outer')!;
      const inner = spans.find((s) => s.name === 'inner')!;
      expect(outer).to.include({ service: 'test-service', traceId, parentSpanId: '', kind: 2 });
      expect(inner).to.include({ traceId, parentSpanId: outer.spanId, kind: 3 });
    });

    it('continues, from a stored trace context, the trace of the span that stored it', async () => {
      const stored = await inSpan('outbox write', {}, async () => storedTraceContext());
      expect(JSON.parse(stored!))
        .to.have.property('traceparent')
        .that.matches(/^00-[\da-f]{32}-[\da-f]{16}-01$/);
      await inSpan('publish', { kind: SpanKind.PRODUCER, parent: contextFromStored(stored) }, async () => {});
      await inSpan('unrelated', { parent: contextFromStored(null) }, async () => {});
      const spans = await eventually('three spans', 5_000, () => receiver.spans.length === 3 && receiver.spans);
      const write = spans.find((s) => s.name === 'outbox write')!;
      const publish = spans.find((s) => s.name === 'publish')!;
      const unrelated = spans.find((s) => s.name === 'unrelated')!;
      expect(publish).to.include({ traceId: write.traceId, parentSpanId: write.spanId, kind: 4 });
      expect(unrelated.traceId).to.not.equal(write.traceId);
      expect(unrelated.parentSpanId).to.equal('');
    });

    it('makes no span inside an unsampled trace, yet carries its context, flags 00, to what it calls', async () => {
      const traceparent = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-00`;
      const parent = contextFrom({ traceparent });
      const seen = await inSpan('server', { kind: SpanKind.SERVER, parent }, async (server) => ({
        server,
        child: await inChildSpan('statement', {}, async (child) => child),
        started: startSpan('GET', { kind: SpanKind.CLIENT }),
        client: startHttpClientSpan('GET', 'http://127.0.0.1:9/x'),
        carrier: traceCarrier(),
      }));
      expect(seen.server).to.equal(undefined);
      expect(seen.child).to.equal(undefined);
      expect(seen.started!.span).to.equal(undefined);
      expect(seen.client!.span).to.equal(undefined);
      expect(seen.client!.headers).to.deep.equal({ traceparent });
      expect(seen.carrier).to.deep.equal({ traceparent });
      // A sampled trace under the same calls records as before.
      await inSpan('sampled', { parent: contextFrom({ traceparent: traceparent.replace(/00$/, '01') }) }, (span) =>
        inChildSpan('statement', {}, async () => span),
      );
      await tracing.shutdown();
      expect(receiver.spans.map((s) => s.name).sort()).to.deep.equal(['sampled', 'statement']);
    });

    it('marks a span whose work throws as failed, and passes the error on', async () => {
      await expect(
        inSpan('failing', {}, async () => {
          throw new Error('no');
        }),
      ).to.be.rejectedWith('no');
      await tracing.shutdown();
      expect(receiver.spans.map((s) => s.name)).to.deep.equal(['failing']);
    });
  });
});
