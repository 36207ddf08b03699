// The run fault matrices' shared fixtures: values that break when thrown or printed, and a model that just answers.
import { ScriptedModel } from '../../src/model/scripted-model.js';

export const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};
export const hostile = () => ({
  toString: () => {
    throw new Error('toString bomb');
  },
  toJSON: () => {
    throw new Error('toJSON bomb');
  },
});
export const answering = () => new ScriptedModel([{ content: '395' }, { content: 'summary' }]);
