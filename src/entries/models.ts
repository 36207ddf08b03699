/** @module stageloop/models */
// 'stageloop/models': the native model adapters beside the Chat Completions one in 'stageloop': OpenAI's Responses API,
// Anthropic's Messages API (its SDK is an optional package, loaded on the first request) and any AI SDK language
// model of provider spec v3. Each is a ChatModel: fallbacks, budgets, approvals, streaming, recording and replay
// work with it as with OpenAIChatModel.
export { OpenAIResponsesModel, type OpenAIResponsesModelOptions } from '../model/openai-responses-model.js';
export {
  AnthropicModel,
  defaultAnthropicBaseUrl,
  defaultAnthropicModel,
  type AnthropicModelOptions,
} from '../model/anthropic-model.js';
export { aiSdkModel, type AiSdkLanguageModel, type AiSdkModelOptions } from '../model/ai-sdk-model.js';
export type { NativeModelOptions } from '../model/native-model.js';
