import { type SchemaAST as AST, Either, Option } from "effect"

/** What a compiled decoder returns for input it does not accept. */
export const refused: unique symbol = Symbol("refused")

/** A decoder compiled from a schema's AST: the decoded value, or {@link refused}. */
export type CompiledDecoder = (input: unknown) => unknown

/**
 * Compiles the decoding side of a schema's AST into plain JavaScript, for the AST nodes ticket events are made of:
 * structs without optional keys or index signatures, arrays, unions, literals, `string`/`number`/`boolean`,
 * refinements (their own filter is called) and final transformations into declarations (their own `decode` and the
 * declaration's own check are called, as for `Instant`). Anything else gives `undefined`: use Effect's decoder.
 *
 * It accepts what Effect's decoder accepts and builds the same value (same keys, in the same order, excess keys
 * dropped), without the `Either` per node and the bookkeeping of error paths: a refused input is to be decoded again
 * by Effect's decoder, which says why (`EventCodec.ts`). A union is decoded by every member, and accepted only when
 * exactly one member accepts (otherwise it is refused here, and Effect's decoder picks as it does).
 * `FastDecode.test.ts` checks the agreement with Effect's decoder on generated and corrupted events.
 *
 * `make` builds a struct's output object (the root's can carry a class prototype).
 */
export const compileDecoder = (ast: AST.AST, make: () => object = () => ({})): CompiledDecoder | undefined => {
  switch (ast._tag) {
    case "StringKeyword":
      return (u) => (typeof u === "string" ? u : refused)
    case "NumberKeyword":
      return (u) => (typeof u === "number" ? u : refused)
    case "BooleanKeyword":
      return (u) => (typeof u === "boolean" ? u : refused)
    case "Literal": {
      const literal = ast.literal
      return (u) => (u === literal ? u : refused)
    }
    case "Refinement": {
      const from = compileDecoder(ast.from)
      if (from === undefined) return undefined
      const options: AST.ParseOptions = {}
      return (u) => {
        const a = from(u)
        return a === refused || Option.isSome(ast.filter(a, options, ast)) ? refused : a
      }
    }
    case "Declaration": {
      if (ast.typeParameters.length > 0) return undefined
      const parse = ast.decodeUnknown()
      const options: AST.ParseOptions = {}
      return (u) => {
        const result = parse(u, options, ast)
        return Either.isEither(result) && Either.isRight(result) ? result.right : refused
      }
    }
    case "Transformation": {
      if (ast.transformation._tag !== "FinalTransformation") return undefined
      const from = compileDecoder(ast.from)
      const to = compileDecoder(ast.to)
      if (from === undefined || to === undefined) return undefined
      const decode = ast.transformation.decode
      const options: AST.ParseOptions = {}
      return (u) => {
        const a = from(u)
        if (a === refused) return refused
        const result = decode(a, options, ast, u)
        return Either.isEither(result) && Either.isRight(result) ? to(result.right) : refused
      }
    }
    case "TupleType": {
      if (ast.elements.length > 0 || ast.rest.length !== 1) return undefined
      const item = compileDecoder(ast.rest[0]!.type)
      if (item === undefined) return undefined
      return (u) => {
        if (!Array.isArray(u)) return refused
        const out = new Array(u.length)
        for (let i = 0; i < u.length; i++) {
          const a = item(u[i])
          if (a === refused) return refused
          out[i] = a
        }
        return out
      }
    }
    case "Union": {
      const members: Array<CompiledDecoder> = []
      for (const member of ast.types) {
        const decode = compileDecoder(member)
        if (decode === undefined) return undefined
        members.push(decode)
      }
      return (u) => {
        let found: unknown = refused
        for (const member of members) {
          const a = member(u)
          if (a === refused) continue
          if (found !== refused) return refused
          found = a
        }
        return found
      }
    }
    case "TypeLiteral": {
      if (ast.indexSignatures.length > 0) return undefined
      const names: Array<string> = []
      const decoders: Array<CompiledDecoder> = []
      for (const ps of ast.propertySignatures) {
        if (ps.isOptional || typeof ps.name !== "string") return undefined
        const decode = compileDecoder(ps.type)
        if (decode === undefined) return undefined
        names.push(ps.name)
        decoders.push(decode)
      }
      return (u) => {
        if (typeof u !== "object" || u === null || Array.isArray(u)) return refused
        const input = u as Record<string, unknown>
        const out = make() as Record<string, unknown>
        for (let i = 0; i < names.length; i++) {
          const name = names[i]!
          // As Effect's decoder: a missing key reads as `undefined`, which none of the nodes above accepts.
          const a = decoders[i]!(input[name])
          if (a === refused) return refused
          out[name] = a
        }
        return out
      }
    }
    default:
      return undefined
  }
}
