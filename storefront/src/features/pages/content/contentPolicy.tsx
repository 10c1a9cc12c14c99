import type { DocumentTranslations } from '../DocumentPage';

export const contentPolicy: DocumentTranslations = {
  en: {
    intro: 'Cliffhanger publishes scripted short dramas made by licensed studios. This policy describes what we publish, how we label it and how to report a problem.',
    sections: [
      { heading: 'What we publish', body: <p>Fiction for adult and teen audiences: romance, revenge, family, fantasy and thriller stories. Series may show mild violence, strong language or romantic scenes, and their categories say so.</p> },
      {
        heading: 'What we do not publish',
        body: (
          <ul>
            <li>Sexual content involving minors, or explicit sexual content of any kind.</li>
            <li>Content that promotes hatred, terrorism, self-harm or real-world violence.</li>
            <li>Content that infringes someone else’s copyright or uses a person’s likeness without consent.</li>
          </ul>
        ),
      },
      { heading: 'Reporting content', body: <p>If you believe a series breaks this policy or infringes your rights, write to content@cliffhanger.example with the series name and episode number. We review every report within 72 hours and remove content that breaks the rules.</p> },
    ],
  },
  es: {
    intro: 'Cliffhanger publica microdramas de ficción producidos por estudios con licencia. Esta política describe qué publicamos, cómo lo clasificamos y cómo informar de un problema.',
    sections: [
      { heading: 'Qué publicamos', body: <p>Ficción para público adulto y adolescente: historias de romance, venganza, familia, fantasía y suspense. Las series pueden mostrar violencia leve, lenguaje fuerte o escenas románticas, y sus categorías lo indican.</p> },
      {
        heading: 'Qué no publicamos',
        body: (
          <ul>
            <li>Contenido sexual que involucre a menores, ni contenido sexual explícito de ningún tipo.</li>
            <li>Contenido que promueva el odio, el terrorismo, las autolesiones o la violencia real.</li>
            <li>Contenido que infrinja los derechos de autor de otra persona o use la imagen de alguien sin su consentimiento.</li>
          </ul>
        ),
      },
      { heading: 'Cómo denunciar contenido', body: <p>Si crees que una serie incumple esta política o vulnera tus derechos, escribe a content@cliffhanger.example indicando el nombre de la serie y el número del episodio. Revisamos cada denuncia en un plazo de 72 horas y retiramos el contenido que incumple las normas.</p> },
    ],
  },
  fy: {
    intro: 'Cliffhanger publie des séries courtes de fiction produites par des studios sous licence. Cette politique décrit ce que nous publions, comment nous le classons et comment signaler un problème.',
    sections: [
      { heading: 'Ce que nous publions', body: <p>De la fiction pour un public adulte et adolescent : des histoires de romance, de vengeance, de famille, de fantasy et de suspense. Les séries peuvent contenir une violence modérée, un langage grossier ou des scènes romantiques, et leurs catégories l’indiquent.</p> },
      {
        heading: 'Ce que nous ne publions pas',
        body: (
          <ul>
            <li>Les contenus sexuels impliquant des mineurs, ainsi que tout contenu sexuellement explicite.</li>
            <li>Les contenus qui font la promotion de la haine, du terrorisme, de l’automutilation ou de la violence réelle.</li>
            <li>Les contenus qui portent atteinte aux droits d’auteur d’autrui ou utilisent l’image d’une personne sans son consentement.</li>
          </ul>
        ),
      },
      { heading: 'Signaler un contenu', body: <p>Si vous pensez qu’une série enfreint cette politique ou porte atteinte à vos droits, écrivez à content@cliffhanger.example en précisant le nom de la série et le numéro de l’épisode. Nous examinons chaque signalement sous 72 heures et retirons les contenus qui enfreignent les règles.</p> },
    ],
  },
  dy: {
    intro: 'Cliffhanger veröffentlicht fiktionale Kurzserien von lizenzierten Studios. Diese Richtlinie beschreibt, was wir veröffentlichen, wie wir es kennzeichnen und wie du ein Problem meldest.',
    sections: [
      { heading: 'Was wir veröffentlichen', body: <p>Fiktion für Erwachsene und Jugendliche: Geschichten über Liebe, Rache, Familie, Fantasy und Spannung. Serien können leichte Gewalt, derbe Sprache oder romantische Szenen enthalten, und ihre Kategorien weisen darauf hin.</p> },
      {
        heading: 'Was wir nicht veröffentlichen',
        body: (
          <ul>
            <li>Sexuelle Inhalte mit Minderjährigen sowie explizite sexuelle Inhalte jeder Art.</li>
            <li>Inhalte, die Hass, Terrorismus, Selbstverletzung oder reale Gewalt fördern.</li>
            <li>Inhalte, die das Urheberrecht anderer verletzen oder das Bildnis einer Person ohne deren Einwilligung verwenden.</li>
          </ul>
        ),
      },
      { heading: 'Inhalte melden', body: <p>Wenn du glaubst, dass eine Serie gegen diese Richtlinie verstößt oder deine Rechte verletzt, schreib an content@cliffhanger.example und nenne den Namen der Serie und die Nummer der Folge. Wir prüfen jede Meldung innerhalb von 72 Stunden und entfernen Inhalte, die gegen die Regeln verstoßen.</p> },
    ],
  },
  pt: {
    intro: 'O Cliffhanger publica microdramas de ficção produzidos por estúdios licenciados. Esta política descreve o que publicamos, como classificamos e como denunciar um problema.',
    sections: [
      { heading: 'O que publicamos', body: <p>Ficção para públicos adulto e adolescente: histórias de romance, vingança, família, fantasia e suspense. As séries podem mostrar violência leve, linguagem forte ou cenas românticas, e suas categorias informam isso.</p> },
      {
        heading: 'O que não publicamos',
        body: (
          <ul>
            <li>Conteúdo sexual envolvendo menores, ou conteúdo sexual explícito de qualquer tipo.</li>
            <li>Conteúdo que promova ódio, terrorismo, automutilação ou violência real.</li>
            <li>Conteúdo que viole os direitos autorais de outra pessoa ou use a imagem de alguém sem consentimento.</li>
          </ul>
        ),
      },
      { heading: 'Como denunciar conteúdo', body: <p>Se você acredita que uma série viola esta política ou infringe seus direitos, escreva para content@cliffhanger.example informando o nome da série e o número do episódio. Analisamos cada denúncia em até 72 horas e removemos o conteúdo que viola as regras.</p> },
    ],
  },
};
