import type { DocumentTranslations } from '../DocumentPage';

export const privacyPolicy: DocumentTranslations = {
  en: {
    intro: 'This policy explains what Cliffhanger collects when you watch, how we use it and the choices you have. We collect only what we need to run the service, keep your account safe and pay the people who make the shows.',
    sections: [
      {
        heading: 'What we collect',
        body: (
          <ul>
            <li><strong>Account data</strong>: your email address and a hash of your password. We never store your password itself.</li>
            <li><strong>Viewing data</strong>: the series in your list, the episodes you watch and where you stopped, so you can pick up where you left off.</li>
            <li><strong>Purchase data</strong>: your orders, coins and subscription status. Card details go directly to our payment provider; we receive only a token and the last four digits.</li>
            <li><strong>Device and attribution data</strong>: an anonymous visitor token, your browser language, and the campaign identifiers (such as fbclid or ttclid) of the advertisement that brought you here.</li>
          </ul>
        ),
      },
      { heading: 'How we use it', body: <p>To stream episodes, remember your progress, process payments and renewals, prevent fraud, measure which campaigns work and improve recommendations. We do not sell your personal data.</p> },
      { heading: 'Advertising and analytics', body: <p>We count page views and purchases with our own analytics pixel. When our advertising partners (Meta, TikTok, Google, Bigo) are configured, we may share conversion events with them, linked to the campaign identifier of your visit, so they can measure their ads.</p> },
      { heading: 'How long we keep it', body: <p>Account and viewing data are kept while your account is active. Guest data with no activity for 12 months is deleted. Payment records are kept as long as tax law requires.</p> },
      { heading: 'Your rights', body: <p>You can access, correct, export or delete your data, and object to marketing, by writing to privacy@cliffhanger.example. We answer within 30 days.</p> },
      { heading: 'Children', body: <p>Cliffhanger is not directed at children under 13, and we do not knowingly collect their data.</p> },
    ],
  },
  es: {
    intro: 'Esta política explica qué datos recopila Cliffhanger cuando ves contenido, cómo los usamos y qué opciones tienes. Solo recopilamos lo necesario para prestar el servicio, proteger tu cuenta y pagar a quienes crean las series.',
    sections: [
      {
        heading: 'Qué recopilamos',
        body: (
          <ul>
            <li><strong>Datos de la cuenta</strong>: tu dirección de correo electrónico y un hash de tu contraseña. Nunca guardamos la contraseña en sí.</li>
            <li><strong>Datos de visualización</strong>: las series de tu lista, los episodios que ves y dónde te quedaste, para que puedas seguir donde lo dejaste.</li>
            <li><strong>Datos de compra</strong>: tus pedidos, monedas y el estado de tu suscripción. Los datos de la tarjeta van directamente a nuestro proveedor de pagos; nosotros solo recibimos un token y los cuatro últimos dígitos.</li>
            <li><strong>Datos del dispositivo y de atribución</strong>: un token anónimo de visitante, el idioma de tu navegador y los identificadores de campaña (como fbclid o ttclid) del anuncio que te trajo hasta aquí.</li>
          </ul>
        ),
      },
      { heading: 'Cómo los usamos', body: <p>Para reproducir episodios, recordar tu progreso, procesar pagos y renovaciones, prevenir el fraude, medir qué campañas funcionan y mejorar las recomendaciones. No vendemos tus datos personales.</p> },
      { heading: 'Publicidad y analítica', body: <p>Contamos las visitas a páginas y las compras con nuestro propio píxel de analítica. Cuando nuestros socios publicitarios (Meta, TikTok, Google, Bigo) están configurados, podemos compartir con ellos eventos de conversión, vinculados al identificador de campaña de tu visita, para que puedan medir sus anuncios.</p> },
      { heading: 'Cuánto tiempo los conservamos', body: <p>Los datos de la cuenta y de visualización se conservan mientras tu cuenta esté activa. Los datos de invitado sin actividad durante 12 meses se eliminan. Los registros de pago se conservan durante el tiempo que exija la legislación fiscal.</p> },
      { heading: 'Tus derechos', body: <p>Puedes acceder a tus datos, corregirlos, exportarlos o eliminarlos, y oponerte al marketing, escribiendo a privacy@cliffhanger.example. Respondemos en un plazo de 30 días.</p> },
      { heading: 'Menores', body: <p>Cliffhanger no está dirigido a menores de 13 años y no recopilamos sus datos a sabiendas.</p> },
    ],
  },
  fy: {
    intro: 'Cette politique explique ce que Cliffhanger collecte lorsque vous regardez nos séries, comment nous l’utilisons et les choix dont vous disposez. Nous ne collectons que ce qui est nécessaire pour faire fonctionner le service, protéger votre compte et rémunérer celles et ceux qui créent les séries.',
    sections: [
      {
        heading: 'Ce que nous collectons',
        body: (
          <ul>
            <li><strong>Données de compte</strong> : votre adresse e-mail et une empreinte (hash) de votre mot de passe. Nous ne stockons jamais le mot de passe lui-même.</li>
            <li><strong>Données de visionnage</strong> : les séries de votre liste, les épisodes que vous regardez et l’endroit où vous vous êtes arrêté, pour que vous puissiez reprendre là où vous en étiez.</li>
            <li><strong>Données d’achat</strong> : vos commandes, vos pièces et l’état de votre abonnement. Les données de carte sont transmises directement à notre prestataire de paiement ; nous ne recevons qu’un jeton et les quatre derniers chiffres.</li>
            <li><strong>Données d’appareil et d’attribution</strong> : un jeton de visiteur anonyme, la langue de votre navigateur et les identifiants de campagne (comme fbclid ou ttclid) de la publicité qui vous a amené ici.</li>
          </ul>
        ),
      },
      { heading: 'Comment nous les utilisons', body: <p>Pour diffuser les épisodes, mémoriser votre progression, traiter les paiements et les renouvellements, prévenir la fraude, mesurer l’efficacité des campagnes et améliorer les recommandations. Nous ne vendons pas vos données personnelles.</p> },
      { heading: 'Publicité et mesure d’audience', body: <p>Nous comptabilisons les pages vues et les achats avec notre propre pixel de mesure d’audience. Lorsque nos partenaires publicitaires (Meta, TikTok, Google, Bigo) sont configurés, nous pouvons partager avec eux des événements de conversion, associés à l’identifiant de campagne de votre visite, afin qu’ils puissent mesurer leurs publicités.</p> },
      { heading: 'Durée de conservation', body: <p>Les données de compte et de visionnage sont conservées tant que votre compte est actif. Les données d’invité sans activité pendant 12 mois sont supprimées. Les justificatifs de paiement sont conservés aussi longtemps que la législation fiscale l’exige.</p> },
      { heading: 'Vos droits', body: <p>Vous pouvez accéder à vos données, les rectifier, les exporter ou les supprimer, et vous opposer à la prospection commerciale, en écrivant à privacy@cliffhanger.example. Nous répondons sous 30 jours.</p> },
      { heading: 'Enfants', body: <p>Cliffhanger ne s’adresse pas aux enfants de moins de 13 ans et nous ne collectons pas sciemment leurs données.</p> },
    ],
  },
  dy: {
    intro: 'Diese Richtlinie erklärt, welche Daten Cliffhanger erhebt, während du schaust, wie wir sie verwenden und welche Wahlmöglichkeiten du hast. Wir erheben nur, was wir brauchen, um den Dienst zu betreiben, dein Konto zu schützen und die Menschen zu bezahlen, die die Serien machen.',
    sections: [
      {
        heading: 'Welche Daten wir erheben',
        body: (
          <ul>
            <li><strong>Kontodaten</strong>: deine E-Mail-Adresse und ein Hash deines Passworts. Das Passwort selbst speichern wir nie.</li>
            <li><strong>Wiedergabedaten</strong>: die Serien in deiner Liste, die Folgen, die du ansiehst, und wo du aufgehört hast, damit du dort weiterschauen kannst.</li>
            <li><strong>Kaufdaten</strong>: deine Bestellungen, Münzen und dein Abostatus. Kartendaten gehen direkt an unseren Zahlungsdienstleister; wir erhalten nur ein Token und die letzten vier Ziffern.</li>
            <li><strong>Geräte- und Attributionsdaten</strong>: ein anonymes Besucher-Token, die Sprache deines Browsers und die Kampagnenkennungen (etwa fbclid oder ttclid) der Anzeige, über die du hierhergekommen bist.</li>
          </ul>
        ),
      },
      { heading: 'Wie wir sie verwenden', body: <p>Um Folgen zu streamen, deinen Fortschritt zu speichern, Zahlungen und Verlängerungen abzuwickeln, Betrug zu verhindern, den Erfolg von Kampagnen zu messen und Empfehlungen zu verbessern. Wir verkaufen deine personenbezogenen Daten nicht.</p> },
      { heading: 'Werbung und Analyse', body: <p>Seitenaufrufe und Käufe zählen wir mit unserem eigenen Analyse-Pixel. Sind unsere Werbepartner (Meta, TikTok, Google, Bigo) eingerichtet, können wir Conversion-Ereignisse mit ihnen teilen, verknüpft mit der Kampagnenkennung deines Besuchs, damit sie ihre Anzeigen messen können.</p> },
      { heading: 'Wie lange wir sie speichern', body: <p>Konto- und Wiedergabedaten werden gespeichert, solange dein Konto aktiv ist. Gastdaten ohne Aktivität seit 12 Monaten werden gelöscht. Zahlungsbelege bewahren wir so lange auf, wie es das Steuerrecht verlangt.</p> },
      { heading: 'Deine Rechte', body: <p>Du kannst Auskunft über deine Daten verlangen, sie berichtigen, exportieren oder löschen lassen und Werbung widersprechen, indem du an privacy@cliffhanger.example schreibst. Wir antworten innerhalb von 30 Tagen.</p> },
      { heading: 'Kinder', body: <p>Cliffhanger richtet sich nicht an Kinder unter 13 Jahren, und wir erheben nicht wissentlich ihre Daten.</p> },
    ],
  },
  pt: {
    intro: 'Esta política explica o que o Cliffhanger coleta quando você assiste, como usamos essas informações e quais escolhas você tem. Coletamos apenas o necessário para operar o serviço, manter sua conta segura e pagar as pessoas que fazem as séries.',
    sections: [
      {
        heading: 'O que coletamos',
        body: (
          <ul>
            <li><strong>Dados da conta</strong>: seu endereço de e-mail e um hash da sua senha. Nunca armazenamos a senha em si.</li>
            <li><strong>Dados de visualização</strong>: as séries da sua lista, os episódios que você assiste e onde parou, para que você possa continuar de onde parou.</li>
            <li><strong>Dados de compra</strong>: seus pedidos, moedas e o status da sua assinatura. Os dados do cartão vão diretamente para o nosso provedor de pagamentos; recebemos apenas um token e os quatro últimos dígitos.</li>
            <li><strong>Dados do dispositivo e de atribuição</strong>: um token anônimo de visitante, o idioma do seu navegador e os identificadores de campanha (como fbclid ou ttclid) do anúncio que trouxe você até aqui.</li>
          </ul>
        ),
      },
      { heading: 'Como usamos', body: <p>Para transmitir episódios, lembrar seu progresso, processar pagamentos e renovações, prevenir fraudes, medir quais campanhas funcionam e melhorar as recomendações. Não vendemos seus dados pessoais.</p> },
      { heading: 'Publicidade e análise', body: <p>Contamos as visualizações de página e as compras com nosso próprio pixel de análise. Quando nossos parceiros de publicidade (Meta, TikTok, Google, Bigo) estão configurados, podemos compartilhar com eles eventos de conversão, vinculados ao identificador de campanha da sua visita, para que possam medir seus anúncios.</p> },
      { heading: 'Por quanto tempo guardamos', body: <p>Os dados da conta e de visualização são mantidos enquanto sua conta estiver ativa. Os dados de visitante sem atividade por 12 meses são excluídos. Os registros de pagamento são mantidos pelo tempo exigido pela legislação tributária.</p> },
      { heading: 'Seus direitos', body: <p>Você pode acessar, corrigir, exportar ou excluir seus dados, e se opor ao marketing, escrevendo para privacy@cliffhanger.example. Respondemos em até 30 dias.</p> },
      { heading: 'Crianças', body: <p>O Cliffhanger não se destina a crianças menores de 13 anos, e não coletamos seus dados intencionalmente.</p> },
    ],
  },
};
