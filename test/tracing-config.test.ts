// When traces are on (docs/operations.md "Traces"): the standard OTEL_* variables decide, and
// without an OTLP endpoint nothing is loaded or sent. The spans themselves: tracing.spawn.test.ts.
import { describe, expect, it } from 'vitest';
import { tracingOn, tracingWanted } from '../src/telemetry/tracing.ts';

describe('tracingWanted', () => {
  it.each([
    [{}, false],
    [{ OTEL_SERVICE_NAME: 'portage' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'false' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'otlp' }, true],
  ])('%j: %s', (env, wanted) => {
    expect(tracingWanted(env)).toBe(wanted);
  });

  it('is off in a process that did not start it: the API is not even loaded', () => {
    expect(tracingOn()).toBe(false);
  });
});
