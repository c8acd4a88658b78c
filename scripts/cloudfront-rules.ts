// The CloudFront Functions JavaScript runtime 2.0 ("cloudfront-js-2.0") rules, checked on the built bundle with a real
// parser (acorn). The sandbox test runs the bundle in Node's V8, which accepts far more than CloudFront's own engine:
// this check refuses, before deploy, every construct the runtime's documentation lists as unsupported or leaves out of
// its list of supported features. Each rule quotes the documentation it enforces:
//   [runtime] "JavaScript runtime 2.0 features for CloudFront Functions",
//             https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-javascript-runtime-20.html
//   [kvs]     "Helper methods for key value stores",
//             https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-custom-methods.html
//   [quotas]  "Quotas" > "Quotas on CloudFront Functions",
//             https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/cloudfront-limits.html
// (read 2026-11-24). A build tool, not part of the bundle: scripts/build-edge.ts runs it on every build and `--check`.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import * as acorn from 'acorn';

/** [quotas] "Maximum function size … 10 KB … This quota isn't adjustable." */
export const MAX_FUNCTION_BYTES = 10_240;

export interface RuleViolation {
  rule: string;
  message: string;
  line: number;
  column: number;
}

type AnyNode = acorn.AnyNode;

/**
 * ES 5.1 syntax plus what [runtime] lists from later editions. Every other node type (classes, generators' yield,
 * destructuring, spread, for-of, optional chaining, default parameters, tagged templates, dynamic import, ...) is
 * outside the runtime's level: "The CloudFront Functions JavaScript runtime environment is compliant with ECMAScript
 * (ES) version 5.1 and also supports some features of ES versions 6 through 12 … The following topics list all
 * supported features in this runtime."
 */
const ALLOWED_NODES = new Set<string>(
  [
    // ES 5.1: "All ES 5.1 types are supported", "All ES 5.1 operators are supported", the ES 5.1 statements listed
    // (break, catch, continue, do-while, else, finally, for, for-in, if, label, return, switch, throw, try, var, while),
    // "All ES 5.1 function features are supported".
    'Program ExpressionStatement BlockStatement EmptyStatement ReturnStatement LabeledStatement BreakStatement',
    'ContinueStatement IfStatement SwitchStatement SwitchCase ThrowStatement TryStatement CatchClause WhileStatement',
    'DoWhileStatement ForStatement ForInStatement FunctionDeclaration VariableDeclaration VariableDeclarator',
    'ThisExpression ArrayExpression ObjectExpression Property FunctionExpression UnaryExpression UpdateExpression',
    'BinaryExpression AssignmentExpression LogicalExpression MemberExpression ConditionalExpression CallExpression',
    'NewExpression SequenceExpression Identifier Literal',
    // "ES 6 arrow functions are supported, and ES 6 rest parameter syntax is supported."
    'ArrowFunctionExpression RestElement',
    // "ES 6 template literals are supported: multiline strings, expression interpolation, and nesting templates."
    'TemplateLiteral TemplateElement',
    // "The following ES 8 statements are supported: async, await" (where, see the async rule below).
    'AwaitExpression',
    // [kvs] "include the following statements in the first lines of the function code: import cf from 'cloudfront';"
    'ImportDeclaration ImportDefaultSpecifier',
  ].flatMap((names) => names.split(' ')),
);

/** ES 5.1 assignment operators, and none of the later compound ones (`**=`, `&&=`, `||=`, `??=`), which [runtime] does not list. */
const ES5_ASSIGNMENT = new Set(['=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '>>>=', '&=', '^=', '|=']);
/** [runtime] lists the ES 5.1 regular expression features and `RegExp.prototype.sticky`; no `u`, `s`, `d` or `v` flag. */
const REGEXP_FLAGS = /^[gimy]*$/;
const NO_NETWORK = '"There is no support for network calls. For example, XHR, HTTP(S), and socket are not supported."';
const NO_TIMERS = '"The setTimeout(), setImmediate(), and clearTimeout() functions are not supported."';
/** [runtime] "Restricted features": globals the runtime does not have, with the rule each breaks and why. */
const NO_SUCH_GLOBALS = new Map<string, [rule: string, why: string]>([
  ['setTimeout', ['timers', NO_TIMERS]],
  ['setImmediate', ['timers', NO_TIMERS]],
  ['clearTimeout', ['timers', NO_TIMERS]],
  ['process', ['globals', '"There is no process access. For example, there is no process global object"']],
  ['fetch', ['globals', NO_NETWORK]],
  ['XMLHttpRequest', ['globals', NO_NETWORK]],
  ['WebSocket', ['globals', NO_NETWORK]],
]);
/** [runtime] "Built-in modules": "You can load the module using require('querystring')" / "require('crypto')". */
const REQUIRABLE = new Set(['querystring', 'crypto']);
const OPERATORS = 'operators ("All ES 5.1 operators" and `**`)';

type FunctionNode = acorn.FunctionDeclaration | acorn.FunctionExpression | acorn.ArrowFunctionExpression;
const isFunction = (node: AnyNode): node is FunctionNode =>
  ['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression'].includes(node.type);
const isNode = (v: unknown): v is AnyNode =>
  v !== null && typeof v === 'object' && typeof (v as { type?: unknown }).type === 'string';

/** The node's child nodes, in source order (`loc` and positions are not nodes). */
export function childrenOf(node: AnyNode): AnyNode[] {
  return Object.values(node).flatMap((v: unknown) => (Array.isArray(v) ? v.filter(isNode) : isNode(v) ? [v] : []));
}

/** The rule a node breaks and the message saying why, if any; `handler` is the top-level handler, `fn` the innermost function around the node. */
function ruleBroken(
  node: AnyNode,
  parent: AnyNode | null,
  fn: FunctionNode | null,
  handler: FunctionNode | null,
  program: acorn.Program,
): [rule: string, message: string] | null {
  /** Syntax the [runtime] feature lists leave out. */
  const unlisted = (what: string, among: string): [string, string] => [
    'es-level',
    `${what} not among the supported ${among}`,
  ];
  switch (node.type) {
    case 'ImportDeclaration':
      // [kvs] "include the following statements in the first lines of the function code: import cf from
      // 'cloudfront';": the one module the runtime provides by import, as a default import, first.
      if (node.source.value !== 'cloudfront')
        return [
          'import',
          `imports ${JSON.stringify(node.source.value)}; the only module a function imports is 'cloudfront'`,
        ];
      if (node.specifiers.length !== 1 || node.specifiers[0]!.type !== 'ImportDefaultSpecifier')
        return ['import', "imports 'cloudfront' other than as `import cf from 'cloudfront'`"];
      if (program.body[0] !== node)
        return ['import', "the 'cloudfront' import belongs on the first lines of the function code"];
      return null;
    case 'ImportExpression':
      return ['import', "dynamic import(): the only module a function imports is 'cloudfront', statically"];
    case 'VariableDeclaration':
      // "The following ES 6 statements are supported: const, let" (and ES 5.1 var); nothing newer (`using`).
      return ['var', 'let', 'const'].includes(node.kind)
        ? null
        : unlisted(`\`${node.kind}\` declarations are`, 'statements');
    case 'Property':
      // ES 5.1 object literals: plain and get/set properties; the ES 6 shorthand, method and computed forms are not listed.
      return node.shorthand || node.method || node.computed
        ? unlisted('ES 6 object literal shorthand, method or computed key is', 'features')
        : null;
    case 'LogicalExpression':
      return node.operator === '??' ? unlisted('`??` (ES 2020) is', OPERATORS) : null;
    case 'AssignmentExpression':
      return ES5_ASSIGNMENT.has(node.operator) ? null : unlisted(`\`${node.operator}\` is`, OPERATORS);
    case 'Literal':
      if ('bigint' in node && node.bigint !== undefined)
        return unlisted('BigInt literals are', 'types ("All ES 5.1 types")');
      if ('regex' in node && node.regex !== undefined && !REGEXP_FLAGS.test(node.regex.flags))
        return ['es-level', `regular expression flags "${node.regex.flags}" beyond the ES 5.1 ones and sticky`];
      return null;
    case 'CatchClause':
      return node.param === null ? unlisted('optional catch binding (ES 2019) is', 'features') : null;
    case 'RestElement':
      // "ES 6 rest parameter syntax is supported": as a function's last parameter, not in destructuring.
      return parent !== null && isFunction(parent)
        ? null
        : ['es-level', 'rest elements outside a parameter list (destructuring) are not supported'];
    case 'AwaitExpression':
      // "await can be used inside async functions only. async arguments and closures are not supported." The one
      // async function is the handler, so every await sits directly in its body.
      return fn !== null && fn === handler
        ? null
        : [
            'await',
            '`await` outside the body of the top-level `async function handler`: "await can be used inside async functions only. async arguments and closures are not supported."',
          ];
    case 'CallExpression':
    case 'NewExpression': {
      const callee = node.callee;
      const name = callee.type === 'Identifier' ? callee.name : null;
      // "Dynamic code evaluation is not supported. Both eval() and Function constructors throw an error if attempted."
      if (name === 'eval' || name === 'Function')
        return ['dynamic-code', `${name}(): "Dynamic code evaluation is not supported."`];
      const arg = node.arguments[0];
      const required = arg?.type === 'Literal' && typeof arg.value === 'string' ? arg.value : null;
      if (
        node.type === 'CallExpression' &&
        name === 'require' &&
        (node.arguments.length !== 1 || !REQUIRABLE.has(required ?? ''))
      )
        return [
          'import',
          `require(${required === null ? '…' : JSON.stringify(required)}): the built-in modules are querystring and crypto (no fs: "There is no file system access")`,
        ];
      // Console: "CloudFront Functions doesn't support comma syntax, such as console.log('a', 'b')".
      const onConsole =
        callee.type === 'MemberExpression' && callee.object.type === 'Identifier' && callee.object.name === 'console';
      if (onConsole && node.type === 'CallExpression' && node.arguments.length > 1)
        return ['console', 'console.log with several arguments: "CloudFront Functions doesn\'t support comma syntax"'];
      return null;
    }
    case 'MemberExpression':
      // Console: "It only supports the log() method".
      if (
        node.object.type === 'Identifier' &&
        node.object.name === 'console' &&
        !node.computed &&
        node.property.type === 'Identifier' &&
        node.property.name !== 'log'
      )
        return ['console', `console.${node.property.name}: the console "only supports the log() method"`];
      return null;
    case 'Identifier': {
      const missing = NO_SUCH_GLOBALS.get(node.name);
      return missing === undefined ? null : [missing[0], `${node.name}: ${missing[1]}`];
    }
    default:
      return null;
  }
}

/**
 * Every way `code` breaks the documented cloudfront-js-2.0 rules; empty when it keeps them all. `code` is the whole
 * function source as CloudFront receives it (the committed edge/cloudfront-function.js).
 */
export function checkCloudFrontFunction(code: string): RuleViolation[] {
  const out: RuleViolation[] = [];
  const add = (rule: string, message: string, node: { loc?: acorn.SourceLocation | null } | null) =>
    out.push({ rule, message, line: node?.loc?.start.line ?? 1, column: (node?.loc?.start.column ?? 0) + 1 });

  // [quotas] "Maximum function size … 10 KB. This quota isn't adjustable."
  const bytes = Buffer.byteLength(code, 'utf8');
  if (bytes > MAX_FUNCTION_BYTES)
    add('size', `${bytes} bytes, over the ${MAX_FUNCTION_BYTES}-byte (10 KB) "Maximum function size"`, null);

  let program: acorn.Program;
  try {
    // Module goal: the runtime import is module syntax, and a module is strict, as the runtime is: "Functions operate
    // in strict mode by default … This cannot be changed." (so `with`, octal literals and the like fail to parse).
    program = acorn.parse(code, { ecmaVersion: 'latest', sourceType: 'module', locations: true });
  } catch (err) {
    const e = err as SyntaxError & { loc?: acorn.Position };
    add(
      'syntax',
      `does not parse as strict ECMAScript: ${e.message}`,
      e.loc ? { loc: { start: e.loc, end: e.loc } } : null,
    );
    return out;
  }

  // CloudFront calls the top-level function named `handler` ("async function handler(event)" in [runtime]'s example).
  const handlers = program.body.filter(
    (s): s is acorn.FunctionDeclaration => s.type === 'FunctionDeclaration' && s.id?.name === 'handler',
  );
  const handler = handlers.length === 1 ? handlers[0]! : null;
  if (handler === null)
    add('handler', `needs exactly one top-level \`function handler(event)\`, found ${handlers.length}`, null);
  else if (handler.params.length !== 1 || handler.params[0]!.type !== 'Identifier')
    add('handler', '`handler` takes exactly one parameter, the event', handler);

  const visit = (node: AnyNode, parent: AnyNode | null, fn: FunctionNode | null): void => {
    if (!ALLOWED_NODES.has(node.type))
      add('es-level', `${node.type} is outside the runtime's ES level (ES 5.1 plus the later features it lists)`, node);
    const broken = ruleBroken(node, parent, fn, handler, program);
    if (broken !== null) add(...broken, node);
    if (isFunction(node)) {
      // "async arguments and closures are not supported.": the only async function is the top-level handler; no
      // async function expression, arrow, method or nested declaration.
      if (node.async && node !== handler) {
        const kind = node.type === 'ArrowFunctionExpression' ? 'arrow' : 'function';
        add(
          'async',
          `an async ${kind} other than the top-level \`handler\`: "async arguments and closures are not supported."`,
          node,
        );
      }
      if (node.generator) add('es-level', 'generators are not among the supported features', node);
    }
    for (const child of childrenOf(node)) {
      // Names that are not references: a non-computed member property or object key (`a.process`, `{fetch: 1}`).
      if ((node.type === 'MemberExpression' || node.type === 'Property') && !node.computed)
        if (child === (node.type === 'MemberExpression' ? node.property : node.key)) continue;
      visit(child, node, isFunction(node) ? node : fn);
    }
  };
  visit(program, null, null);
  return out.sort((a, b) => a.line - b.line || a.column - b.column);
}

export function formatViolation(file: string, v: RuleViolation): string {
  return `${file}:${v.line}:${v.column}: [${v.rule}] ${v.message}`;
}

//   tsx scripts/cloudfront-rules.ts FILE...    exit 1 and list each broken rule when a file breaks one
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const files = process.argv.slice(2);
  process.exitCode = files.length === 0 ? 2 : 0;
  for (const file of files) {
    const found = checkCloudFrontFunction(readFileSync(file, 'utf8'));
    for (const v of found) console.error(formatViolation(file, v));
    if (found.length > 0) process.exitCode = 1;
    else console.log(`${file}: keeps the cloudfront-js-2.0 rules`);
  }
}
