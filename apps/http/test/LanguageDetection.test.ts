import { describe, expect, it } from "@effect/vitest"
import { detectableText, detectLanguage, MIN_DETECTION_LENGTH } from "../src/Language/LanguageDetection.js"

describe("detectLanguage", () => {
  it.each([
    ["en", "Hello, the parcel I ordered two weeks ago has still not arrived. Could you please check my delivery?"],
    [
      "fr",
      "Bonjour, le colis que j'ai commandé il y a deux semaines n'est toujours pas arrivé. Pourriez-vous vérifier ?"
    ],
    [
      "de",
      "Hallo, das Paket, das ich vor zwei Wochen bestellt habe, ist immer noch nicht angekommen. Bitte prüfen Sie das."
    ],
    ["es", "Hola, el paquete que pedí hace dos semanas todavía no ha llegado. ¿Podrían revisar mi envío, por favor?"],
    ["ja", "こんにちは、二週間前に注文した商品がまだ届いていません。配送状況を確認していただけますか。"],
    ["zh", "您好，我两周前订购的包裹还没有到，请帮我查一下物流信息，谢谢。"],
    [
      "it",
      "Buongiorno, il pacco che ho ordinato due settimane fa non è ancora arrivato. Potete controllare la spedizione?"
    ]
  ])("answers the ISO 639-1 code %s for a text in that language", (code, text) => {
    expect(detectLanguage(text)).toBe(code)
  })

  it("answers empty for texts shorter than the minimum, and at the edge reads the text", () => {
    expect(detectLanguage("Thanks!")).toBe("")
    expect(detectLanguage("a".repeat(MIN_DETECTION_LENGTH - 1))).toBe("")
    expect(detectLanguage("")).toBe("")
  })

  it("answers empty when no language can be told (digits, symbols)", () => {
    expect(detectLanguage("1234567890 1234567890 1234567890 #### ----")).toBe("")
  })

  it("ignores markup, links and e-mail addresses", () => {
    expect(detectableText("<p>Hi <b>there</b></p> see https://example.com/x or mail a@b.co")).toBe(
      "Hi there see or mail"
    )
    const french = "Bonjour, le colis que j'ai commandé il y a deux semaines n'est toujours pas arrivé."
    expect(detectLanguage(`<div>${french}</div> https://example.com/tracking/ABCDEF`)).toBe("fr")
  })
})
