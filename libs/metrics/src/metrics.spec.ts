import { Gauge } from 'prom-client';
import { getMetricsFromIterator } from 'prom2javascript';
import { Metrics } from './metrics';

describe('Metrics: the exposition text', () => {
  it('leaves out samples that are not a number, so that common parsers read the text', async () => {
    const metrics = new Metrics('test');
    const notANumber = new Gauge({ name: 'corelite_test_not_a_number', help: 'a gauge set to NaN', registers: [metrics.registry] });
    notANumber.set(Number.NaN);
    const number = new Gauge({ name: 'corelite_test_number', help: 'a gauge set to 2', registers: [metrics.registry] });
    number.set(2);
    const text = await metrics.render();
    expect(text).not.toMatch(/^corelite_test_not_a_number\{/m);
    expect(text).toContain('# TYPE corelite_test_not_a_number gauge');
    expect(text).toMatch(/^corelite_test_number\{service="test"\} 2$/m);
    await expect(getMetricsFromIterator(text.split('\n')[Symbol.iterator]())).resolves.toBeDefined();
  });
});
